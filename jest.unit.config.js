module.exports = require('./jest.preset')('unit');
