export * from './load-config';
export * from './env-schemas';
export * from './providers';
export * from './service-runner';
export * from './start-wait';
export * from './failpoint';
export * from './schema-variables';
export * from './token-lifetimes';
