export * from './workspace-limits';
export * from './rate-limit.guard';
export * from './rate-limit-rider';
export * from './limits-from-config';
export * from './auth-failure-throttle';
