import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { fold, isTerminalState, type RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { RunProjection, type DeliveredEvent } from './run-projection';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 21, 10, 0, s)).toISOString();
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };
const RUNS = 3;

/** Run `r`'s events, with sequences as JetStream would give them (interleaved with the other runs'). */
function lifecycle(runId: string, r: number): DeliveredEvent[] {
  const events: RunEvent[] = [
    {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'ws',
        workload: { image: 'busybox' },
        provider: 'auto',
        region: 'auto',
        idempotencyKey: `k${r}`,
        at: at(0),
      },
    },
    { type: 'run.dispatched', data: { placement, at: at(1) } },
    { type: 'run.started', data: { at: at(2) } },
    { type: 'run.log', data: { index: 0, stream: 'stdout', line: 'one', at: at(3) } },
    { type: 'run.cancel_requested', data: { requestedBy: 'alice', at: at(4) } },
    { type: 'run.log', data: { index: 1, stream: 'stderr', line: 'two', at: at(5) } },
    { type: 'run.canceled', data: { requestedBy: 'alice', at: at(6) } },
  ];
  const seqOf = (k: number): number => 1 + k * RUNS + r;
  return events.map((event, k) => ({ runId, seq: seqOf(k), previous: k === 0 ? 0 : seqOf(k - 1), event }));
}

interface Model {
  /** What has been delivered (and so must be projected) per run, by sequence. */
  readonly delivered: Map<string, Map<number, RunEvent>>;
  /** (run, seq) pairs a batch has reported as newly applied. */
  readonly applied: Set<string>;
}

interface Real {
  readonly projection: RunProjection;
  readonly queries: RunQueries;
  readonly runs: DeliveredEvent[][];
}

/**
 * Two or three replicas' batches (each a pick of events of any runs, repeats included) start in the
 * order the scheduler picks and then run truly concurrently against Postgres. After each race every
 * run's row must be the fold of the unbroken chain of events delivered so far (from the run's first
 * event up to the first one not delivered), at that chain's last sequence (and last state change), and each event must have
 * been reported as newly applied exactly once.
 */
class Race implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly picks: readonly (readonly (readonly [number, number])[])[],
    readonly scheduler: () => fc.Scheduler,
  ) {}

  check(): boolean {
    return true;
  }

  async run(m: Model, real: Real): Promise<void> {
    const s = this.scheduler();
    const batches = this.picks.map((batch) => batch.map(([r, k]) => real.runs[r]![k]!));
    const racing = batches.map((batch) => s.schedule(Promise.resolve()).then(() => real.projection.projectBatch(batch)));
    await s.waitAll();
    const results = await Promise.all(racing);
    const newlyApplied = results.flat().flatMap((p) => p.appliedSeqs.map((seq) => `${p.runId}:${seq}`));
    const fresh = new Set(
      batches
        .flat()
        .map((d) => `${d.runId}:${d.seq}`)
        .filter((key) => !m.applied.has(key)),
    );
    expect([...newlyApplied].sort()).toEqual([...fresh].sort());
    for (const d of batches.flat()) {
      const events = m.delivered.get(d.runId) ?? new Map<number, RunEvent>();
      events.set(d.seq, d.event);
      m.delivered.set(d.runId, events);
      m.applied.add(`${d.runId}:${d.seq}`);
    }
    for (const run of real.runs) {
      const runId = run[0]!.runId;
      const delivered = m.delivered.get(runId) ?? new Map<number, RunEvent>();
      // The unbroken chain from the run's first event: it ends before the first event not delivered.
      const chain = run.filter((_, k) => run.slice(0, k + 1).every((e) => delivered.has(e.seq)));
      const state = fold(chain.map((e) => e.event));
      const row = await real.queries.find('ws', runId);
      if (!state) {
        expect(row).toBeNull();
      } else {
        // The row's ETag is its last state change: a log line moves `version` only.
        const stateVersion = chain.filter((e) => e.event.type !== 'run.log').at(-1)!.seq;
        expect(row).toEqual({ ...state, terminal: isTerminalState(state.state), version: chain[chain.length - 1]!.seq, stateVersion });
      }
    }
  }

  toString(): string {
    return `Race(${this.picks.map((b) => b.map(([r, k]) => `${r}.${k}`).join(' ')).join(' | ')})`;
  }
}

describe('RunProjection, model-based, replicas racing against real Postgres', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 10 });
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('keeps every row the fold of the unbroken chain of events delivered so far, whatever the batches and their interleaving', async () => {
    const pick = fc.tuple(fc.integer({ min: 0, max: RUNS - 1 }), fc.integer({ min: 0, max: 6 }));
    const batch = fc.array(pick, { minLength: 1, maxLength: 6 });
    let current: fc.Scheduler | undefined;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.commands([fc.array(batch, { minLength: 1, maxLength: 3 }).map((picks) => new Race(picks, () => current!))], { maxCommands: 8 }),
        async (s, commands) => {
          current = s;
          const runs = Array.from({ length: RUNS }, (_, r) => lifecycle(randomUUID(), r));
          const real: Real = { projection: new RunProjection(db), queries: new RunQueries(db), runs };
          await fc.asyncModelRun(
            () => ({ model: { delivered: new Map<string, Map<number, RunEvent>>(), applied: new Set<string>() }, real }),
            commands,
          );
        },
      ),
      { numRuns: 20 },
    );
  });
});
