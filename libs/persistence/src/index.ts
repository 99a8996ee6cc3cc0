export * from './data-source';
export * from './run-projection';
export * from './run-queries';
export * from './run-list';
export * from './workspaces';
export { RunEntity } from './entities/run.entity';
export { WorkspaceEntity } from './entities/workspace.entity';
export * from './provider-credentials';
export * from './run-statistics';
