export * from './stack';
export * from './stack-env';
export * from './container-engine';
export * from './dependencies';
export * from './provider-plan';
export * from './running-stack';
export * from './pass-through';
