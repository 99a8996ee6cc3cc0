import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStreams, parseRunEventsSubject, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { ProjectionConsumer } from '../projection-consumer';
import { deleteRuns } from './delete-runs';
import { rebuildProjection } from './rebuild-projection';
import { allEventMessages, appendRuns, tableRows } from './run-histories.testing';

describe('delete-runs: a workspace’s finished runs before a time', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;
  let db: DataSource;
  const march = new Map<string, string[]>();
  let may: string[];

  async function streamRunIds(): Promise<Set<string>> {
    return new Set((await allEventMessages(nc, jsm, names)).map((m) => parseRunEventsSubject(m.subject)!.runId));
  }

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    await migrate(env.database);
    db = await openDatabase({ ...env.database, poolSize: 4 });
    const store = new RunEventStore(jetstream(nc), jsm, names);
    // Six shapes each: finished (succeeded, failed, canceled) and unfinished (running, created, dispatched).
    march.set('ws-a', await appendRuns(store, 'ws-a', 6, '2026-03-01'));
    march.set('ws-b', await appendRuns(store, 'ws-b', 6, '2026-03-01'));
    may = await appendRuns(store, 'ws-a', 6, '2026-05-01');
    await new ProjectionConsumer(new RunProjection(db), () => undefined, store).handleBatch(await allEventMessages(nc, jsm, names));
  });

  afterAll(async () => {
    await db?.destroy();
    await nc?.close();
    await env?.cleanup();
  });

  const options = { workspaceId: 'ws-a', finishedBefore: new Date('2026-04-01T00:00:00Z') };

  it('a dry run counts the runs and deletes nothing', async () => {
    const before = await tableRows(db, 'runs');
    expect(await deleteRuns(nc, db, names, { ...options, dryRun: true })).toMatchObject({ runs: 3, events: 0, dryRun: true });
    expect(await tableRows(db, 'runs')).toEqual(before);
  });

  it('deletes only that workspace’s runs finished before the time: rows, stored events and stream events', async () => {
    const finished = march.get('ws-a')!.slice(0, 3);
    const report = await deleteRuns(nc, db, names, { ...options, dryRun: false, pageSize: 2 });
    // succeeded: created, dispatched, started, 3 logs, succeeded (7); failed: 4; canceled: 3.
    expect(report).toMatchObject({ runs: 3, events: 14 });
    const rows = (await tableRows(db, 'runs')).map((r) => r['id'] as string);
    const kept = [...march.get('ws-a')!.slice(3), ...march.get('ws-b')!, ...may];
    expect(rows.sort()).toEqual([...kept].sort());
    const storedRuns = new Set((await tableRows(db, 'run_events')).map((e) => e['run_id'] as string));
    const inStream = await streamRunIds();
    for (const id of finished) {
      expect([storedRuns.has(id), inStream.has(id)]).toEqual([false, false]);
    }
    for (const id of kept) {
      expect([storedRuns.has(id), inStream.has(id)]).toEqual([true, true]);
    }
  });

  it('a projection rebuild does not bring deleted runs back, and a second deletion finds nothing', async () => {
    const rows = await tableRows(db, 'runs');
    await rebuildProjection(nc, db, names);
    expect((await tableRows(db, 'runs')).map((r) => r['id'])).toEqual(rows.map((r) => r['id']));
    expect(await deleteRuns(nc, db, names, { ...options, dryRun: false })).toMatchObject({ runs: 0, events: 0 });
  });
});
