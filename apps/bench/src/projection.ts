import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { RunEvent } from '@wrs/domain';
import {
  connectNats,
  DEFAULT_STREAM_SETTINGS,
  DurableConsumer,
  encodeRunEvent,
  ensureStreams,
  runEventOf,
  StreamNames,
} from '@wrs/messaging';
import { migrate, openDatabase } from '@wrs/persistence';
import { PROJECTION_BATCHING, RunProjection } from '@wrs/projection';
import { Client } from 'pg';
import { cleanUp } from './clean-up';
import { rawConsumeRate, type RawAcks } from './raw-consume';
import type { Figure } from './scenarios';
import { percentile, round } from './stats';
import { atLeast, below } from './target';

const EVENTS_PER_RUN = 100;
const BATCH = PROJECTION_BATCHING.maxBatch;

/**
 * Projection: a backlog of `total` events (runs of 100 events: created, dispatched, started, log
 * lines) caught up by the worker's projection (a durable consumer feeding RunProjection.projectBatch,
 * batched as the worker does), against raw batched inserts of the same rows; then the lag from an
 * event's JetStream time to its committed row while events arrive at a steady rate.
 */
export async function projectionCatchUp(
  natsUrl: string,
  databaseUrl: string,
  total: number,
  steadyPerSecond: number,
  seconds: number,
): Promise<Figure[]> {
  const namespace = `benchproj${randomUUID().slice(0, 6)}`;
  const names = new StreamNames(namespace);
  const database = { url: databaseUrl, schema: namespace };
  await migrate(database);
  const db = await openDatabase(database);
  // Connected as the worker connects (connectNats), so the projection pays what the worker's does.
  const nc = await connectNats(natsUrl, 'bench-projection');
  const jsm = await jetstreamManager(nc, { timeout: 60_000 });
  const js = jetstream(nc);
  await ensureStreams(jsm, names, { ...DEFAULT_STREAM_SETTINGS, idempotencyRetentionMs: 60_000 });
  try {
    const rows = backlog(Math.ceil(total / EVENTS_PER_RUN));
    await publishAll(
      rows.map((r) => () => js.publish(names.runEvents('bench', r.runId), encodeRunEvent('bench', r.runId, r.event)).then(() => undefined)),
    );

    const projection = new RunProjection(db);
    const lags: number[] = [];
    let projected = 0;
    let measuringLag = false;
    const consumer = new DurableConsumer(js, jsm, {
      stream: names.eventsStream,
      durable: `${namespace}_projection`,
      filterSubject: names.allRunEvents(),
      ackWaitMs: 60_000,
      onError: (error) => console.error(`projection batch failed: ${String(error)}`),
    });
    const started = performance.now();
    let caughtUpAt = 0;
    await consumer.startBatches(
      async (messages: readonly JsMsg[]) => {
        await projection.projectBatch(messages.map(runEventOf).filter((e) => e !== null));
        const now = Date.now();
        projected += messages.length;
        if (projected >= rows.length && caughtUpAt === 0) {
          caughtUpAt = performance.now();
        }
        if (measuringLag) {
          lags.push(...messages.map((m) => now - m.info.timestampNanos / 1e6));
        }
        return messages.map(() => 'ack' as const);
      },
      BATCH,
      PROJECTION_BATCHING.lingerMs,
      { concurrency: PROJECTION_BATCHING.concurrency, keyOf: (m) => m.subject },
    );
    while (caughtUpAt === 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const catchUpRate = rows.length / ((caughtUpAt - started) / 1000);

    measuringLag = true;
    await steadyPublish(steadyPerSecond, seconds, (i) => {
      const runId = rows[(i % (rows.length / EVENTS_PER_RUN)) * EVENTS_PER_RUN]!.runId;
      const event: RunEvent = {
        type: 'run.log',
        data: { index: 1000 + i, stream: 'stdout', line: `steady ${i}`, at: new Date().toISOString() },
      };
      return js.publish(names.runEvents('bench', runId), encodeRunEvent('bench', runId, event)).then(() => undefined);
    });
    await new Promise((r) => setTimeout(r, 500));
    await consumer.stop();

    const rawRate = await rawBatchedInserts(databaseUrl, namespace, rows);
    const consume = (acks: RawAcks): Promise<number> =>
      rawConsumeRate(js, jsm, names.eventsStream, names.allRunEvents(), rows.length, acks);
    // Once unmeasured, so the first measured consume does not pay for reading the stream back in.
    await consume('all-per-batch');
    const eachWrittenAloneRate = await consume('each');
    const consumeRate = await consume('each-per-batch');
    const ackAllRate = await consume('all-per-batch');
    // Taking each event out of JetStream and storing it, one after the other: a catch-up pays both.
    const floorRate = 1 / (1 / consumeRate + 1 / rawRate);
    return [
      {
        scenario: 'projection',
        metric: `catch-up of a ${rows.length}-event backlog`,
        value: round(catchUpRate),
        unit: 'events/s',
        baseline: { what: `raw batched inserts (${BATCH} rows per statement)`, value: round(rawRate) },
        ratio: round(catchUpRate / rawRate, 3),
        target: atLeast(0.7, 'ratio'),
      },
      {
        scenario: 'projection',
        metric: `raw JetStream consume of the same backlog (a durable pull consumer, each message acknowledged, a batch's 256 acknowledgements written together as the projection's are, nothing else)`,
        value: round(consumeRate),
        unit: 'events/s',
      },
      {
        scenario: 'projection',
        metric: `raw JetStream consume, each acknowledgement written on its own as its message is taken (what a write per acknowledgement costs)`,
        value: round(eachWrittenAloneRate),
        unit: 'events/s',
        baseline: { what: 'raw consume, acknowledgements written together', value: round(consumeRate) },
        ratio: round(eachWrittenAloneRate / consumeRate, 3),
      },
      {
        scenario: 'projection',
        metric: `raw JetStream consume with one ack-all per 256 messages, against the consume acknowledging each message in writes of 256 (what acknowledging each message costs; unsafe for replicas sharing a consumer)`,
        value: round(ackAllRate),
        unit: 'events/s',
        baseline: { what: 'raw consume, each message acknowledged, written together', value: round(consumeRate) },
        ratio: round(ackAllRate / consumeRate, 3),
      },
      {
        scenario: 'projection',
        metric: `catch-up against raw consume (acknowledgements written 256 together) and raw batched inserts one after the other (what taking and storing each event costs at best)`,
        value: round(catchUpRate),
        unit: 'events/s',
        baseline: { what: '1 / (1 / raw consume, acknowledgements written together + 1 / raw inserts)', value: round(floorRate) },
        ratio: round(catchUpRate / floorRate, 3),
      },
      {
        scenario: 'projection',
        metric: `lag, event time to committed row, p50 at ${steadyPerSecond} events/s`,
        value: round(percentile(lags, 50)),
        unit: 'ms',
      },
      {
        scenario: 'projection',
        metric: `lag p99 at ${steadyPerSecond} events/s`,
        value: round(percentile(lags, 99)),
        unit: 'ms',
        target: below(50),
      },
    ];
  } finally {
    await nc.close();
    await db.destroy();
    await cleanUp(natsUrl, databaseUrl, namespace);
  }
}

interface Row {
  readonly runId: string;
  readonly seq: number;
  readonly event: RunEvent;
}

function backlog(runs: number): Row[] {
  const at = new Date().toISOString();
  const placement = { provider: 'simulator', region: 'local-1', reason: 'bench', candidates: [] };
  return Array.from({ length: runs }, () => randomUUID()).flatMap((runId) => {
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: { runId, workspaceId: 'bench', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
      },
      { type: 'run.dispatched', data: { placement, at } },
      { type: 'run.started', data: { at } },
      ...Array.from({ length: EVENTS_PER_RUN - 3 }, (_, index): RunEvent => ({
        type: 'run.log',
        data: { index, stream: 'stdout', line: `line ${index} of the bench workload`, at },
      })),
    ];
    return events.map((event, i) => ({ runId, seq: i + 1, event }));
  });
}

/** Publishes with a bounded number in flight (JetStream acknowledges each). */
async function publishAll(publishes: (() => Promise<void>)[], inFlight = 256): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < publishes.length) {
        await publishes[next++]!();
      }
    }),
  );
}

async function steadyPublish(perSecond: number, seconds: number, publish: (i: number) => Promise<void>): Promise<void> {
  const total = perSecond * seconds;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) {
      await new Promise((r) => setTimeout(r, wait));
    }
    pending.push(publish(i));
  }
  await Promise.all(pending);
}

/** The same rows into a copy of run_events, a statement per batch (one JSON array, as the projection sends it): what Postgres takes at best here. */
async function rawBatchedInserts(databaseUrl: string, schema: string, rows: readonly Row[]): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE "${schema}".raw_events (LIKE "${schema}".run_events INCLUDING ALL)`);
  const started = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO "${schema}".raw_events (run_id, seq, type, event)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(run_id uuid, seq bigint, type text, event jsonb)`,
      [JSON.stringify(batch.map((r) => ({ run_id: r.runId, seq: r.seq, type: r.event.type, event: r.event })))],
    );
  }
  const rate = rows.length / ((performance.now() - started) / 1000);
  await client.end();
  return rate;
}
