import type { RunEvent } from '@wrs/domain';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from './bigint-number';

/** Every event the projection has seen, so the run's state can be re-folded in sequence order. */
@Entity({ name: 'run_events' })
export class RunEventEntity {
  @PrimaryColumn({ name: 'run_id', type: 'uuid' })
  runId!: string;

  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  seq!: number;

  /** The sequence of the run's previous event (0 for its first); null where it was not known. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber })
  previous!: number | null;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'jsonb' })
  event!: RunEvent;
}
