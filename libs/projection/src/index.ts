export * from './run-projection';
export * from './projection-refold';
export * from './projection-batching';
