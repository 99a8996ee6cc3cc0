export * from './http-service-connections';
export * from './create-http-service';
export * from './serve-http-service';
export * from './run-resource';
export * from './edge-guards';
