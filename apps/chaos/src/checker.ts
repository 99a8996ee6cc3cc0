import { isDeepStrictEqual } from 'node:util';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { fold, foldSequenced, isTerminalState, type RunEvent, type RunState } from '@wrs/domain';
import { consumeOrdered, decodeRunEvent, parseRunEventsSubject, PREVIOUS_EVENT_HEADER, StreamNames } from '@wrs/messaging';
import { differences } from './differences';
import type { FollowerRecord, LogicalCreate } from './workload';

export interface Verdict {
  readonly name: string;
  readonly ok: boolean;
  readonly checked: number;
  readonly violations: string[];
}

export interface StoredRun {
  readonly runId: string;
  readonly workspaceId: string;
  readonly events: { seq: number; previous: number; event: RunEvent }[];
}

export interface Observed {
  readonly runs: Map<string, StoredRun>;
  readonly rows: Map<string, { state: string; version: number; stateVersion: number | null; body: RunState }>;
  /** The sequences the projection stored per run (run_events), to tell a lost event from a bad fold. */
  readonly storedSeqs: Map<string, number[]>;
  /** Events the projection has not acknowledged yet (pending plus unacknowledged): 0 once caught up. */
  readonly projectionBacklog: number;
  /** The same for the worker's commands (a command delivered to a worker that died waits the ack wait). */
  readonly commandBacklog: number;
}

/** Reads what JetStream and Postgres hold now, straight from the servers (not through the proxies). */
export async function observe(natsUrl: string, databaseUrl: string, schema: string, namespace: string): Promise<Observed> {
  const names = new StreamNames(namespace);
  const nc = await connect({ servers: natsUrl });
  const runs = new Map<string, StoredRun>();
  let projectionBacklog = Number.POSITIVE_INFINITY;
  let commandBacklog = Number.POSITIVE_INFINITY;
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const info = await jsm.streams.info(names.eventsStream);
    const last = info.state.last_seq;
    if (info.state.messages > 0) {
      // Deleted after the read: the settle loop reads every 500 ms.
      const messages = await consumeOrdered(js, jsm, names.eventsStream, {});
      for await (const m of messages) {
        const ids = parseRunEventsSubject(m.subject);
        if (ids) {
          const run = runs.get(ids.runId) ?? { ...ids, events: [] };
          runs.set(ids.runId, run);
          run.events.push({
            seq: m.seq,
            previous: Number(m.headers?.get(PREVIOUS_EVENT_HEADER) ?? -1),
            event: decodeRunEvent(m.data).event,
          });
        }
        if (m.seq >= last) {
          break;
        }
      }
      await messages.close();
    }
    const projection = await jsm.consumers.info(names.eventsStream, names.projectionConsumer()).catch(() => null);
    projectionBacklog = projection ? projection.num_pending + projection.num_ack_pending : Number.POSITIVE_INFINITY;
    const commands = await jsm.consumers.info(names.commandsStream, names.workerCommandsConsumer()).catch(() => null);
    commandBacklog = commands ? commands.num_pending + commands.num_ack_pending : Number.POSITIVE_INFINITY;
  } finally {
    await nc.close();
  }
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const rows = new Map<string, { state: string; version: number; stateVersion: number | null; body: RunState }>();
  const storedSeqs = new Map<string, number[]>();
  try {
    const result = await pg.query<{ id: string; state: string; version: string; state_version: string | null; body: RunState }>(
      `SELECT id, state, version, state_version, body FROM "${schema}".runs`,
    );
    for (const row of result.rows) {
      const stateVersion = row.state_version === null ? null : Number(row.state_version);
      rows.set(row.id, { state: row.state, version: Number(row.version), stateVersion, body: row.body });
    }
    const events = await pg.query<{ run_id: string; seq: string }>(`SELECT run_id, seq FROM "${schema}".run_events ORDER BY run_id, seq`);
    for (const e of events.rows) {
      storedSeqs.set(e.run_id, [...(storedSeqs.get(e.run_id) ?? []), Number(e.seq)]);
    }
  } finally {
    await pg.end();
  }
  return { runs, rows, storedSeqs, projectionBacklog, commandBacklog };
}

/** The checker's verdicts on what the workload saw and what the stores hold. */
export function check(creates: readonly LogicalCreate[], followers: readonly FollowerRecord[], observed: Observed): Verdict[] {
  const verdicts: Verdict[] = [];
  const verdict = (name: string, checked: number, violations: string[]): void => {
    verdicts.push({ name, ok: violations.length === 0, checked, violations: violations.slice(0, 50) });
  };

  // 1. Every create answered 2xx maps to exactly one run in JetStream (exactly one run.created event
  //    on the run's subject: the api appends it before answering) and one row in Postgres.
  const acked = new Map<string, string>();
  for (const c of creates) {
    for (const o of c.outcomes) {
      if (o.ok) {
        acked.set(o.runId, c.key);
      }
    }
  }
  const ackViolations: string[] = [];
  for (const [runId, key] of acked) {
    const run = observed.runs.get(runId);
    const created = run?.events.filter((e) => e.event.type === 'run.created') ?? [];
    if (created.length !== 1) {
      ackViolations.push(`${runId} (key ${key}): ${created.length} run.created events in JetStream`);
    }
    if (!observed.rows.has(runId)) {
      ackViolations.push(`${runId} (key ${key}): no row in Postgres`);
    }
  }
  verdict('every acknowledged create is exactly one run in JetStream and Postgres', acked.size, ackViolations);

  // 2. Every logical request (key) produced at most one run: in its answers and in JetStream.
  const keyViolations: string[] = [];
  const runsByKey = new Map<string, Set<string>>();
  for (const run of observed.runs.values()) {
    for (const e of run.events) {
      if (e.event.type === 'run.created') {
        const key = e.event.data.idempotencyKey;
        runsByKey.set(key, new Set([...(runsByKey.get(key) ?? []), run.runId]));
      }
    }
  }
  const sentKeys = new Set(creates.map((c) => c.key));
  for (const c of creates) {
    const answered = new Set(c.outcomes.flatMap((o) => (o.ok ? [o.runId] : [])));
    const stored = runsByKey.get(c.key) ?? new Set<string>();
    if (answered.size > 1) {
      keyViolations.push(`key ${c.key}: answered with ${answered.size} different runs ${[...answered].join(', ')}`);
    }
    if (stored.size > 1) {
      keyViolations.push(`key ${c.key}: ${stored.size} runs in JetStream ${[...stored].join(', ')}`);
    }
    for (const runId of answered) {
      if (stored.size > 0 && !stored.has(runId)) {
        keyViolations.push(`key ${c.key}: answered ${runId}, JetStream holds ${[...stored].join(', ')}`);
      }
    }
  }
  for (const key of runsByKey.keys()) {
    if (!sentKeys.has(key)) {
      keyViolations.push(`a run for key ${key}, which the workload never sent`);
    }
  }
  verdict('every logical request (Idempotency-Key) produced at most one run', creates.length, keyViolations);

  // 3. Every run reached a terminal state (in its events and in Postgres) after the faults stopped.
  const terminalViolations: string[] = [];
  for (const run of observed.runs.values()) {
    const state = fold(run.events.map((e) => e.event));
    const row = observed.rows.get(run.runId);
    if (!state || !isTerminalState(state.state)) {
      terminalViolations.push(`${run.runId}: the fold of its events is ${state?.state ?? 'nothing'}`);
    } else if (!row || !isTerminalState(row.state as RunState['state'])) {
      terminalViolations.push(`${run.runId}: Postgres says ${row?.state ?? 'no row'}`);
    }
  }
  verdict('every run reached a terminal state within the bound after the faults stopped', observed.runs.size, terminalViolations);

  // 4. The event store itself: each event names the run's previous event (a gap-free chain).
  const chainViolations: string[] = [];
  for (const run of observed.runs.values()) {
    let previous = 0;
    for (const e of run.events) {
      if (e.previous !== previous) {
        chainViolations.push(`${run.runId}: event ${e.seq} names previous ${e.previous}, the run's previous is ${previous}`);
      }
      previous = e.seq;
    }
  }
  verdict("every stored event names the run's previous event (no gap in JetStream)", observed.runs.size, chainViolations);

  // 5. Every follower saw exactly the run's events: in order, none missing, none twice, to the end.
  const followViolations: string[] = [];
  for (const f of followers) {
    const expected = observed.runs.get(f.runId)?.events.map((e) => e.seq) ?? [];
    if (!isDeepStrictEqual(f.ids, expected)) {
      const dupes = f.ids.filter((id, i) => f.ids.indexOf(id) !== i);
      const missing = expected.filter((id) => !f.ids.includes(id));
      followViolations.push(
        `${f.runId}: saw [${f.ids.join(',')}], JetStream holds [${expected.join(',')}]` +
          `${dupes.length ? ` duplicates ${dupes.join(',')}` : ''}${missing.length ? ` missing ${missing.join(',')}` : ''}` +
          ` connections ${JSON.stringify(f.connections)}; trace: ${traceSummary(f.trace)}`,
      );
    }
    if (!f.done) {
      followViolations.push(`${f.runId}: the follower did not see the end (${f.types.join(',')})`);
    }
    followViolations.push(...f.problems.map((p) => `${f.runId}: ${p}`));
  }
  verdict('every follower saw a gap-free, duplicate-free, ordered sequence to the end', followers.length, followViolations);

  // 6. The Postgres row of every run is the fold of its events from JetStream, at its last sequence
  // and with its last state change (the run's ETag).
  const foldViolations: string[] = [];
  for (const run of observed.runs.values()) {
    const row = observed.rows.get(run.runId);
    const state = fold(run.events.map((e) => e.event));
    const { version, stateVersion } = foldSequenced(run.events);
    if (!row) {
      foldViolations.push(`${run.runId}: no row`);
      continue;
    }
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(state)), row.body) || row.version !== version || row.stateVersion !== stateVersion) {
      const differing = differences(row.body, JSON.parse(JSON.stringify(state)) as unknown).join('; ');
      foldViolations.push(
        `${run.runId}: row ${row.state}@${row.version}/${row.stateVersion}, fold ${state?.state}@${version}/${stateVersion}${differing ? ` (row vs fold: ${differing})` : ''};` +
          ` JetStream holds [${run.events.map((e) => `${e.seq} ${e.event.type}`).join(', ')}], run_events [${(observed.storedSeqs.get(run.runId) ?? []).join(',')}]`,
      );
    }
  }
  for (const runId of observed.rows.keys()) {
    if (!observed.runs.has(runId)) {
      foldViolations.push(`${runId}: a row without events`);
    }
  }
  verdict('the Postgres row of every run equals the fold of its events', observed.runs.size, foldViolations);
  return verdicts;
}

/** The start and end of a follower's trace: enough to see whether it connected, and what it got. */
function traceSummary(trace: readonly string[]): string {
  const lines = trace.length > 12 ? [...trace.slice(0, 6), `... ${trace.length - 12} more ...`, ...trace.slice(-6)] : trace;
  return lines.join(' | ') || 'empty';
}
