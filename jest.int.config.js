// Integration tier: real NATS, Postgres and Redis (Testcontainers when an engine answers).
module.exports = require('./jest.preset')('int', {
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
});
