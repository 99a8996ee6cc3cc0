export * from './access-token';
export * from './key-files';
export * from './nest/public.decorator';
export * from './nest/bearer-auth.guard';
