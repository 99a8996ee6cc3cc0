// End-to-end tier: the compiled stack (npm run build) as real processes, called over real sockets.
module.exports = require('./jest.preset')('e2e', {
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 120_000,
  maxWorkers: 1,
});
