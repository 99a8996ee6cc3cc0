import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { decide, fold, type RunEvent } from '@wrs/domain';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { migrate, openDatabase, RunQueries } from '@wrs/persistence';
import { RunProjection } from './run-projection';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 21, 10, 0, s)).toISOString();
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

function lifecycle(runId: string): { seq: number; event: RunEvent }[] {
  return [
    {
      seq: 10,
      event: {
        type: 'run.created',
        data: {
          runId,
          workspaceId: 'ws',
          workload: { image: 'busybox' },
          provider: 'auto',
          region: 'auto',
          idempotencyKey: 'k',
          at: at(0),
        },
      },
    },
    { seq: 12, event: { type: 'run.dispatched', data: { placement, at: at(1) } } },
    { seq: 15, event: { type: 'run.started', data: { at: at(2) } } },
    { seq: 19, event: { type: 'run.succeeded', data: { exitCode: 0, at: at(3) } } },
  ];
}

describe('RunProjection against real Postgres', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;
  let projection: RunProjection;
  let queries: RunQueries;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 20 });
    projection = new RunProjection(db);
    queries = new RunQueries(db);
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('ends in the fold of the events when every event arrives twice and out of order', async () => {
    const runId = randomUUID();
    const events = lifecycle(runId);
    const deliveries = [events[2], events[0], events[3], events[2], events[1], events[0], events[3], events[1]];
    for (const d of deliveries) {
      await projection.project(runId, d!.seq, d!.event);
    }
    const run = await queries.find('ws', runId);
    expect(run).toEqual({ ...fold(events.map((e) => e.event)), terminal: true, version: 19, stateVersion: 19 });
  });

  it('reports a redelivery as not applied and does not change the row', async () => {
    const runId = randomUUID();
    const [first] = lifecycle(runId);
    expect((await projection.project(runId, first!.seq, first!.event)).applied).toBe(true);
    expect((await projection.project(runId, first!.seq, first!.event)).applied).toBe(false);
    expect((await queries.find('ws', runId))?.version).toBe(10);
  });

  it('has no lost update and no regression when replicas project concurrently', async () => {
    const runIds = Array.from({ length: 10 }, () => randomUUID());
    // Two "replicas" deliver every event of every run at the same time, in opposite orders.
    await Promise.all(
      runIds.flatMap((runId) => {
        const events = lifecycle(runId);
        return [...events, ...[...events].reverse()].map((e) => projection.project(runId, e.seq, e.event));
      }),
    );
    for (const runId of runIds) {
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: 19, startedAt: at(2) });
    }
  });

  it('ends every run in the fold of its events when batches mix runs, repeat events and race each other', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 1_000_000 }), async (runs, seed) => {
        const runIds = Array.from({ length: runs }, () => randomUUID());
        const deliveries = runIds.flatMap((runId) =>
          lifecycle(runId).flatMap((e) => [
            { runId, ...e },
            { runId, ...e },
          ]),
        );
        const shuffled = shuffle(deliveries, seed);
        // Two replicas take alternate slices of the shuffled deliveries, as batches of uneven sizes.
        const batches: (typeof deliveries)[] = [];
        for (let i = 0, size = 1; i < shuffled.length; i += size, size = (size % 5) + 1) {
          batches.push(shuffled.slice(i, i + size));
        }
        const replicaA = batches.filter((_, i) => i % 2 === 0);
        const replicaB = batches.filter((_, i) => i % 2 === 1);
        const results = await Promise.all(
          [replicaA, replicaB].map(async (own) => {
            const seen = [];
            for (const batch of own) {
              seen.push(...(await projection.projectBatch(batch)));
            }
            return seen;
          }),
        );
        for (const runId of runIds) {
          expect(await queries.find('ws', runId)).toEqual({
            ...fold(lifecycle(runId).map((e) => e.event)),
            terminal: true,
            version: 19,
            stateVersion: 19,
          });
        }
        // Each event was reported as newly applied exactly once, whichever replica and batch had it.
        const applied = results.flat().flatMap((r) => r.appliedSeqs.map((seq) => `${r.runId}:${seq}`));
        expect(applied.sort()).toEqual(runIds.flatMap((id) => lifecycle(id).map((e) => `${id}:${e.seq}`)).sort());
      }),
      { numRuns: 25 },
    );
  });

  it('stores the log lines a workload prints, whatever their characters (NUL, broken surrogates)', async () => {
    const runId = randomUUID();
    const [created, dispatched, started] = lifecycle(runId);
    const state = fold([created!.event, dispatched!.event, started!.event]);
    const logs = decide(
      {
        type: 'RecordLogs',
        fromIndex: 0,
        lines: [
          { stream: 'stdout', line: 'a\u0000b' },
          { stream: 'stderr', line: '\ud800x' },
        ],
        now: at(3),
      },
      state,
    );
    await projection.projectBatch(
      [created!, dispatched!, started!, ...logs.map((event, i) => ({ seq: 16 + i, event }))].map((e) => ({ runId, ...e })),
    );
    const stored: { event: { data: { line: string } } }[] = await db.query(
      `SELECT event FROM run_events WHERE run_id = $1 AND type = 'run.log' ORDER BY seq`,
      [runId],
    );
    expect(stored.map((r) => r.event.data.line)).toEqual(['a\uFFFDb', '\uFFFDx']);
  });

  // A guard for any change in how a batch reaches Postgres (docs/performance.md tried JSON literals in
  // SQL text). The labels are ones the API refuses (refusedLabelKeys): this exercises storage only.
  it('stores quotes, backslashes, array syntax and SQL in lines and labels exactly', async () => {
    const runId = randomUUID();
    const [created, dispatched, started] = lifecycle(runId);
    const hostile = [
      "it's",
      'back\\slash \\x41 \\\\',
      "'); DROP TABLE runs; --",
      '$fn$ $$ E\'\\n\' "q"',
      '{a,"b"} NULL',
      '\u2028 🚀 \t\r\n',
    ];
    const event = created!.event;
    if (event.type !== 'run.created') {
      throw new Error('the lifecycle starts with run.created');
    }
    const labels = Object.fromEntries([...hostile, 'NULL'].map((value, i) => [`k${i}'"`, value]));
    const labelled: RunEvent = { type: 'run.created', data: { ...event.data, workload: { image: 'busybox', labels } } };
    const logs = decide(
      { type: 'RecordLogs', fromIndex: 0, lines: hostile.map((line) => ({ stream: 'stdout' as const, line })), now: at(3) },
      fold([labelled, dispatched!.event, started!.event]),
    );
    // What the decider made of the lines (it keeps these as they are): the store is judged against it.
    expect(logs.map((e) => (e.type === 'run.log' ? e.data.line : null))).toEqual(hostile);
    await projection.projectBatch(
      [{ ...created!, event: labelled }, dispatched!, started!, ...logs.map((e, i) => ({ seq: 16 + i, event: e }))].map((e) => ({
        runId,
        ...e,
      })),
    );
    const stored: { event: { data: { line: string } } }[] = await db.query(
      `SELECT event FROM run_events WHERE run_id = $1 AND type = 'run.log' ORDER BY seq`,
      [runId],
    );
    expect(stored.map((r) => r.event.data.line)).toEqual(hostile);
    const rows: { label: string }[] = await db.query(`SELECT label FROM run_labels WHERE run_id = $1`, [runId]);
    expect(rows.map((l) => l.label).sort()).toEqual(
      Object.entries(labels)
        .map(([key, value]) => `${key}=${value}`)
        .sort(),
    );
    expect(await queries.find('ws', runId)).toMatchObject({ workload: { labels }, logLines: hostile.length });
  });

  describe('with each event naming its previous one (as JetStream messages do)', () => {
    const chained = (runId: string): { runId: string; seq: number; previous: number; event: RunEvent }[] =>
      lifecycle(runId).map((e, k, all) => ({ runId, ...e, previous: k === 0 ? 0 : all[k - 1]!.seq }));

    it('stops the row before an event not delivered yet, names it, and goes on when it comes', async () => {
      const runId = randomUUID();
      const [created, dispatched, started, succeeded] = chained(runId);
      await projection.projectBatch([created!, dispatched!]);
      // run.started (15) is lost for now; run.succeeded (19) names it as its previous event.
      const [held] = await projection.projectBatch([succeeded!]);
      expect(held).toMatchObject({ appliedSeqs: [19], version: 12, missing: 15 });
      // The row is a state the run was really in: dispatched, and nothing folded past the hole.
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'starting', version: 12, startedAt: null });
      const [filled] = await projection.projectBatch([started!]);
      expect(filled).toMatchObject({ appliedSeqs: [15], version: 19, missing: null });
      expect(await queries.find('ws', runId)).toEqual({
        ...fold(chained(runId).map((e) => e.event)),
        terminal: true,
        version: 19,
        stateVersion: 19,
      });
    });

    it('holds a run without a row until its creation arrives, then folds the whole chain', async () => {
      const runId = randomUUID();
      const [created, dispatched, started] = chained(runId);
      expect(await projection.projectBatch([started!, dispatched!])).toEqual([
        expect.objectContaining({ state: null, version: 0, missing: 10 }),
      ]);
      expect(await queries.find('ws', runId)).toBeNull();
      await projection.projectBatch([created!]);
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'running', version: 15 });
    });

    it('folds across a hole it is told no delivery will fill', async () => {
      const runId = randomUUID();
      const [created, dispatched, , succeeded] = chained(runId);
      await projection.projectBatch([created!, dispatched!, succeeded!]);
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'starting', version: 12 });
      expect(await projection.foldAcrossHole(runId)).toMatchObject({ version: 19, missing: null });
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: 19, startedAt: null });
      // Nothing more to fold: nothing written.
      expect(await projection.foldAcrossHole(runId)).toBeNull();
    });

    it('does not fall back behind a hole it folded across when an event without a known previous comes late', async () => {
      const runId = randomUUID();
      const [created, dispatched, , succeeded] = chained(runId);
      await projection.projectBatch([created!, dispatched!, succeeded!]);
      await projection.foldAcrossHole(runId);
      const lateLog: RunEvent = { type: 'run.log', data: { index: 0, stream: 'stdout', line: 'late', at: at(2) } };
      await projection.projectBatch([{ runId, seq: 11, previous: null, event: lateLog }]);
      // A log line stored late changes the count, not the last state change.
      expect(await queries.find('ws', runId)).toMatchObject({ state: 'succeeded', version: 19, stateVersion: 19, logLines: 1 });
    });
  });

  it('hides a run from another workspace', async () => {
    const runId = randomUUID();
    const [first] = lifecycle(runId);
    await projection.project(runId, first!.seq, first!.event);
    expect(await queries.find('other', runId)).toBeNull();
  });
});

/** A deterministic shuffle (mulberry32), so a failing seed can be replayed. */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  let a = seed;
  const random = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
