export * from './http-service-connections';
