// Unit tier: no servers. Two workers on the 2-core machine: Jest's default (cores - 1) left one core idle
// through the specs that wait on a child process (tsc, ESLint, the client's build).
module.exports = require('./jest.preset')('unit', { maxWorkers: 2 });
