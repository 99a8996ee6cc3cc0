export * from './http-service-connections';
export * from './create-http-service';
export * from './serve-http-service';
export * from './edge-guards';
