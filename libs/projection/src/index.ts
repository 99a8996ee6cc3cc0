export * from './run-projection';
export * from './projection-refold';
export * from './projection-batching';
export { inTransaction, type Sql, type Statement } from './projection-sql';
