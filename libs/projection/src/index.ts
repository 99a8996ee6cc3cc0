export * from './run-projection';
export * from './projection-refold';
