import type { RunState } from '@wrs/domain';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint-number';

/** The projection of one run: its folded state and the sequence of the last event folded in. */
@Entity({ name: 'runs' })
// The indexes are the migrations' (see 1763700000003-runs-list-indexes.ts); this one documents the list's order.
@Index('runs_workspace_created_id', ['workspaceId', 'createdAt', 'id'])
export class RunEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'text' })
  workspaceId!: string;

  @Column({ type: 'text' })
  state!: string;

  @Column({ type: 'boolean' })
  terminal!: boolean;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  version!: number;

  /**
   * The sequence of the last state-changing event folded in (not a log line): the run's ETag. Null in
   * a row a worker of the previous version wrote; read it with STATE_VERSION_SQL.
   */
  @Column({ name: 'state_version', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  stateVersion!: number | null;

  @Column({ type: 'jsonb' })
  body!: RunState;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
