import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { IntakeIdle } from './intake-idle';
import { IntakeStore } from './intake-store';
import { WebhookIntake } from './webhook-intake';

const CHECK_MS = 100;
const SKIP_MARGIN_MS = 500;

describe('the webhook intake while no workspace has an endpoint (real NATS and Postgres)', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let db: DataSource;
  let names: StreamNames;
  let events: RunEventStore;
  let intake: WebhookIntake;
  const errors: unknown[] = [];
  /** Consumers made on the events stream, as the server announces them. */
  let consumersMade = 0;
  const store = (): IntakeStore => new IntakeStore(db);
  let version = 0;
  const runId = randomUUID();

  const appendStarted = async (): Promise<number> => {
    version = await events.append('w1', runId, [{ type: 'run.started', data: { at: new Date().toISOString() } }], version, randomUUID());
    return (await jsm.streams.info(names.eventsStream)).state.last_seq;
  };
  const consumers = async (): Promise<number> => (await jsm.consumers.list(names.eventsStream).next()).length;
  const deliveredSeqs = async (): Promise<number[]> =>
    ((await db.query('SELECT seq FROM webhook_deliveries ORDER BY seq')) as { seq: string }[]).map((r) => Number(r.seq));

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'intake-idle-test');
    jsm = await jetstreamManager(nc);
    names = new StreamNames(env.namespace);
    await ensureStreams(jsm, names);
    events = new RunEventStore(jetstream(nc), jsm, names);
    const advisories = nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.CREATED.${names.eventsStream}.>`);
    void (async () => {
      for await (const _ of advisories) {
        consumersMade++;
      }
    })();
    await nc.flush();
    intake = new WebhookIntake(jetstream(nc), jsm, names, store(), new IntakeIdle(db, jsm, names.eventsStream), {
      name: 'webhooks',
      retryMs: CHECK_MS,
      idleCheckMs: CHECK_MS,
      skipMarginMs: SKIP_MARGIN_MS,
      onTaken: () => undefined,
      onError: (error) => errors.push(error),
    });
    intake.start();
  });

  afterAll(async () => {
    await intake.stop();
    expect(errors).toEqual([]);
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  it('reads no event, and moves its cursor past them only once they are older than its margin', async () => {
    await appendStarted();
    const last = await appendStarted();
    const stored = performance.now();
    await eventually(async () => ((await store().cursor('webhooks')) >= last ? true : undefined), 10_000, 'the cursor past the events');
    expect(performance.now() - stored).toBeGreaterThanOrEqual(SKIP_MARGIN_MS - CHECK_MS);
    expect(await store().cursor('webhooks')).toBe(last);
    // Nothing was read: no consumer was ever made on the events stream.
    expect(consumersMade).toBe(0);
    expect(await deliveredSeqs()).toEqual([]);
  });

  it('is owed the events after a registration from the next check on, and reads them', async () => {
    const before = await appendStarted();
    await db.query(
      `INSERT INTO webhooks (id, workspace_id, url, events, sealed, created_at) VALUES ($1, 'w1', 'https://example.test/hook', '{started}', '{}', now())`,
      [randomUUID()],
    );
    const after = await appendStarted();
    await eventually(async () => ((await deliveredSeqs()).length > 0 ? true : undefined), 10_000, 'a delivery');
    expect(await deliveredSeqs()).toEqual([after]);
    expect(after).toBeGreaterThan(before);
    expect(consumersMade).toBe(1);
    expect(await consumers()).toBe(1);
  });

  it('stops reading once the last endpoint is gone, and skips what follows', async () => {
    await db.query('DELETE FROM webhooks');
    // The reader looks again after an event: one arrives, the check finds nobody, and it closes.
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 2));
    await appendStarted();
    await eventually(async () => ((await consumers()) === 0 ? true : undefined), 10_000, 'the consumer closed');
    const last = await appendStarted();
    await eventually(async () => ((await store().cursor('webhooks')) >= last ? true : undefined), 10_000, 'the cursor past the events');
    expect(await consumers()).toBe(0);
  });
});
