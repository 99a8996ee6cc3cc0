export * from './run/run.events';
export * from './run/run.state';
export * from './run/run.commands';
export * from './run/run.view';
export * from './run/run.versions';
export * from './placement/placement';
export * from './run/run.resource';
export * from './ids';
