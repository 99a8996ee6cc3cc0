export * from './stack';
export * from './stack-env';
