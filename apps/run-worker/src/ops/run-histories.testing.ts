import { randomUUID } from 'node:crypto';
import { jetstream, DeliverPolicy, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import { consumeOrdered, type RunEventStore, type StreamNames } from '@wrs/messaging';
import type { DataSource } from 'typeorm';

const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/** Run histories of every shape the projection folds: finished three ways, with logs, and unfinished. */
export function history(runId: string, workspaceId: string, shape: number, day: string): RunEvent[] {
  const at = (minute: number) => `${day}T10:${String(minute).padStart(2, '0')}:00.000Z`;
  const created: RunEvent = {
    type: 'run.created',
    data: {
      runId,
      workspaceId,
      workload: { image: 'busybox', command: ['echo', String(shape)] },
      provider: 'auto',
      region: 'auto',
      idempotencyKey: runId,
      at: at(0),
    },
  };
  const running: RunEvent[] = [
    created,
    { type: 'run.dispatched', data: { placement, at: at(1) } },
    { type: 'run.started', data: { at: at(2) } },
  ];
  const logs: RunEvent[] = [0, 1, 2].map((index) => ({
    type: 'run.log',
    data: { index, stream: index === 1 ? 'stderr' : 'stdout', line: `line ${index}`, at: at(3) },
  }));
  switch (shape % 6) {
    case 0:
      return [...running, ...logs, { type: 'run.succeeded', data: { exitCode: 0, at: at(4) } }];
    case 1:
      return [
        ...running,
        { type: 'run.failed', data: { failure: { code: 'workload_exit_nonzero', message: 'exit 3' }, exitCode: 3, at: at(4) } },
      ];
    case 2:
      return [
        created,
        { type: 'run.cancel_requested', data: { requestedBy: 'user-1', at: at(1) } },
        { type: 'run.canceled', data: { requestedBy: 'user-1', at: at(2) } },
      ];
    case 3:
      return [...running, ...logs];
    case 4:
      return [created];
    default:
      return running.slice(0, 2);
  }
}

/** Appends `count` runs of `workspaceId` as the api and workers would (one append per decision). */
export async function appendRuns(store: RunEventStore, workspaceId: string, count: number, day: string): Promise<string[]> {
  const ids: string[] = [];
  for (let shape = 0; shape < count; shape++) {
    const runId = randomUUID();
    let version = 0;
    for (const [i, event] of history(runId, workspaceId, shape, day).entries()) {
      version = await store.append(workspaceId, runId, [event], version, `${runId}-${i}`);
    }
    ids.push(runId);
  }
  return ids;
}

/** Every message of the events stream, in order, as the projection consumer receives them. */
export async function allEventMessages(nc: NatsConnection, jsm: JetStreamManager, names: StreamNames): Promise<JsMsg[]> {
  const last = (await jsm.streams.info(names.eventsStream)).state.last_seq;
  const messages = await consumeOrdered(jetstream(nc), jsm, names.eventsStream, { deliver_policy: DeliverPolicy.All });
  const all: JsMsg[] = [];
  for await (const m of messages) {
    all.push(m);
    if (m.seq >= last) {
      break;
    }
  }
  await messages.close();
  return all;
}

/** Every column of every row of a table, in a stable order. */
export function tableRows(db: DataSource, table: 'runs' | 'run_events'): Promise<Record<string, unknown>[]> {
  return db.query(table === 'runs' ? 'SELECT * FROM runs ORDER BY id' : 'SELECT * FROM run_events ORDER BY run_id, seq');
}
