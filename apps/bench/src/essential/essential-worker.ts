import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import type { Client } from 'pg';
import {
  EssentialNames,
  LATER_EVENTS,
  PREVIOUS_EVENT_HEADER,
  SIMULATED_DURATION_MS,
  SIMULATED_START_DELAY_MS,
  stateAfter,
} from './essential-names';

/** As the worker's projection (PROJECTION_BATCHING): at most 256 events a batch, a quiet stream's batch waits 10 ms for more. */
const MAX_BATCH = 256;
const LINGER_MS = 10;

interface Envelope {
  readonly type: string;
  readonly runId: string;
  readonly workspaceId: string;
  readonly data: object;
}

/**
 * The essential program's worker: one durable pull consumer on the run events (as the run worker has
 * one, its projection's, which pokes its reconciler for a new run). The worker loop takes each new run
 * (its `run.created`, as it arrives) through the rest of a simulated run's life, one append each
 * (dispatched at once, started 20 ms later, succeeded 50 ms after that, as the simulator's defaults
 * with the bench's SIM_DURATION_MS=50), each guarded by the run's last sequence. The projection writes
 * one row per run: what arrived, newest event per run, in one multi-row upsert per batch (one
 * statement, so one transaction), and acknowledges the batch after its commit. (A second consumer for
 * the worker loop cost NATS another delivery and acknowledgement per event.)
 */
export async function essentialWorker(nc: NatsConnection, pg: Client, names: EssentialNames): Promise<() => Promise<void>> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  let consumer: ConsumerMessages | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const consume = async (durable: string, take: (m: JsMsg) => void): Promise<void> => {
    await jsm.consumers.add(names.eventsStream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: names.allRunEvents(),
      ack_wait: 60_000_000_000,
      max_ack_pending: 1000,
    });
    consumer = await (await js.consumers.get(names.eventsStream, durable)).consume({ max_messages: MAX_BATCH, callback: take });
  };

  const append = async (run: Envelope, index: number, after: number): Promise<number> => {
    const at = new Date().toISOString();
    const type = LATER_EVENTS[index - 1]!;
    const data =
      type === 'run.dispatched'
        ? { placement: { provider: 'simulator', region: 'local-1' }, at }
        : type === 'run.succeeded'
          ? { exitCode: 0, at }
          : { at };
    const meta = headers();
    meta.set(PREVIOUS_EVENT_HEADER, String(after));
    const ack = await js.publish(
      names.runEvents(run.workspaceId, run.runId),
      JSON.stringify({ type, runId: run.runId, workspaceId: run.workspaceId, time: at, data }),
      { msgID: `${run.runId}:${index}`, expect: { lastSubjectSequence: after }, headers: meta },
    );
    return ack.seq;
  };
  const later = (run: Envelope, index: number, after: number, delayMs: number): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      append(run, index, after).then(
        (seq) => index < LATER_EVENTS.length && later(run, index + 1, seq, SIMULATED_DURATION_MS),
        (error: unknown) => console.error(`essential worker: ${String(error)}`),
      );
    }, delayMs);
    timers.add(timer);
  };
  const pending: { readonly message: JsMsg; readonly event: Envelope }[] = [];
  let writing = false;
  let lingering: NodeJS.Timeout | undefined;
  const upsert = {
    name: 'essential_upsert',
    text: `INSERT INTO ${names.table} (id, workspace_id, state, version, created, updated_at)
           SELECT id, workspace_id, state, version, created, now()
           FROM jsonb_to_recordset($1::jsonb) AS t(id uuid, workspace_id text, state text, version bigint, created jsonb)
           ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, version = EXCLUDED.version,
             created = COALESCE(${names.table}.created, EXCLUDED.created), updated_at = now()
           WHERE ${names.table}.version < EXCLUDED.version`,
  };
  const write = async (): Promise<void> => {
    lingering = undefined;
    writing = true;
    try {
      while (pending.length > 0) {
        const batch = pending.splice(0, MAX_BATCH);
        const rows = new Map<string, { workspaceId: string; state: string; version: number; created: unknown }>();
        for (const { message, event } of batch) {
          const row = rows.get(event.runId);
          const created = event.type === 'run.created' ? event.data : (row?.created ?? null);
          rows.set(event.runId, { workspaceId: event.workspaceId, state: stateAfter(event.type), version: message.seq, created });
        }
        // One JSON array for the batch, as our projection sends it (cheaper than an array per column).
        const values = [...rows].map(([id, r]) => ({
          id,
          workspace_id: r.workspaceId,
          state: r.state,
          version: r.version,
          created: r.created,
        }));
        await pg.query({ ...upsert, values: [JSON.stringify(values)] });
        batch.forEach(({ message }) => message.ack());
      }
    } catch (error) {
      console.error(`essential projection: ${String(error)}`);
    } finally {
      writing = false;
    }
  };
  await consume(names.workerConsumer(), (message) => {
    const event = message.json<Envelope>();
    if (event.type === 'run.created') {
      append(event, 1, message.seq).then(
        (seq) => later(event, 2, seq, SIMULATED_START_DELAY_MS),
        (error: unknown) => console.error(`essential worker: ${String(error)}`),
      );
    }
    pending.push({ message, event });
    if (!writing && lingering === undefined) {
      lingering = setTimeout(() => void write(), LINGER_MS);
    }
  });

  return async () => {
    timers.forEach((t) => clearTimeout(t));
    await consumer?.close();
  };
}
