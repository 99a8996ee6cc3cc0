export * from './catalogue';
export * from './problem-error';
export * from './problem-body';
export * from './problem.filter';
export * from './request-id';
export * from './json-body';
export * from './negotiation';
export * from './client-error';
