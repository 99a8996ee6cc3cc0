export * from './images';
export * from './infrastructure';
export * from './isolation';
export * from './contract-validator';
export * from './contract-client';
export * from './test-tokens';
export * from './eventually';
export * from './sse-reader';
