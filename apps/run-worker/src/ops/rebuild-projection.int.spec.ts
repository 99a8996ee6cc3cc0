import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { ProjectionConsumer } from '../projection-consumer';
import { rebuildProjection } from './rebuild-projection';
import { allEventMessages, appendRuns, tableRows } from './run-histories.testing';

/** A row as the projection wrote it, but for `updated_at`: when it was written, not what it folds. */
function folded(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map(({ updated_at: _written, ...row }) => row);
}

describe('rebuild-projection: the runs table from the events stream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;
  let db: DataSource;
  let runs: Record<string, unknown>[];
  let events: Record<string, unknown>[];

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 4 });
    const store = new RunEventStore(jetstream(nc), jsm, names);
    await appendRuns(store, 'ws-a', 18, '2026-03-01');
    await appendRuns(store, 'ws-b', 7, '2026-03-02');
    // Projected as the workers do it: the worker's consumer, in batches of the stream's messages.
    const consumer = new ProjectionConsumer(new RunProjection(db), () => undefined, store);
    const messages = await allEventMessages(nc, jsm, names);
    for (let i = 0; i < messages.length; i += 16) {
      expect(new Set(await consumer.handleBatch(messages.slice(i, i + 16)))).toEqual(new Set(['ack']));
    }
    runs = await tableRows(db, 'runs');
    events = await tableRows(db, 'run_events');
    expect(runs.length).toBe(25);
    expect(events.length).toBe(messages.length);
  });

  afterAll(async () => {
    await db?.destroy();
    await nc?.close();
    await env?.cleanup();
  });

  it('with the rows dropped, rebuilds every row field by field', async () => {
    await db.query('DELETE FROM runs');
    const report = await rebuildProjection(nc, db, names);
    expect(report).toMatchObject({ events: events.length, refolded: 25 });
    expect(folded(await tableRows(db, 'runs'))).toEqual(folded(runs));
    expect(await tableRows(db, 'run_events')).toEqual(events);
  });

  it('into an empty database (a restore with nothing of the projection) rebuilds the same rows and events', async () => {
    await db.query('DELETE FROM runs');
    await db.query('DELETE FROM run_events');
    const report = await rebuildProjection(nc, db, names);
    expect(report.events).toBe(events.length);
    expect(folded(await tableRows(db, 'runs'))).toEqual(folded(runs));
    expect(await tableRows(db, 'run_events')).toEqual(events);
  });

  it('keeps a run whose events the stream no longer holds (retention) from its stored events', async () => {
    const gone = runs.find((r) => r['workspace_id'] === 'ws-b')!['id'] as string;
    await jsm.streams.purge(names.eventsStream, { filter: names.runEvents('ws-b', gone) });
    await db.query('DELETE FROM runs');
    await rebuildProjection(nc, db, names);
    expect(folded(await tableRows(db, 'runs'))).toEqual(folded(runs));
  });

  it('run again with nothing to do, changes nothing', async () => {
    const before = await tableRows(db, 'runs');
    const report = await rebuildProjection(nc, db, names);
    expect(report.refolded).toBe(0);
    expect(await tableRows(db, 'runs')).toEqual(before);
  });
});
