export * from './sealed-secret';
export * from './fingerprint';
export * from './kek-files';
export * from './kubernetes-credential';
