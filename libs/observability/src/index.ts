export * from './logger';
export * from './request-log';
