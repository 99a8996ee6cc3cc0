import { Counter, Gauge, Histogram, register } from 'prom-client';

/**
 * Every metric the services export, in one place, so the dashboard and alert rules can be checked against
 * it (metrics-catalogue.unit.spec.ts). Names follow Prometheus conventions; label values come from small
 * fixed sets only (route templates, configured provider names, event types), never raw paths.
 */

/** Seconds buckets from a few milliseconds (a cached read) to a minute (a slow dependency). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpRequestDuration = new Histogram({
  name: 'wrs_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being finished, by route template, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
});

export const runsCreated = new Counter({
  name: 'wrs_runs_created_total',
  help: 'Runs created by POST /runs (idempotent replays not counted).',
});

export const idempotentReplays = new Counter({
  name: 'wrs_idempotent_replays_total',
  help: 'POST /runs answered with the first answer of an earlier request with the same Idempotency-Key.',
});

export const runsFinished = new Counter({
  name: 'wrs_runs_finished_total',
  help: 'Runs that reached a terminal state, by state (counted once, by the worker that projected the event).',
  labelNames: ['state'] as const,
});

export const rateLimitRejections = new Counter({
  name: 'wrs_rate_limit_rejections_total',
  help: 'Requests refused with a 429 by a limit: requests (per minute), active_runs, event_streams or auth_failures.',
  labelNames: ['limit'] as const,
});

export const edgeAnswers = new Counter({
  name: 'wrs_edge_answers_total',
  help: 'Problems answered at the edge before any route (parser errors, timeouts, missing Host, Expect, CONNECT, upstream failures at the gateway), by code and reason.',
  labelNames: ['code', 'reason'] as const,
});

export const failedAuthentications = new Counter({
  name: 'wrs_failed_authentications_total',
  help: 'Requests whose credential failed (answered 401, or 429 once their client address failed too often).',
  labelNames: ['outcome'] as const,
});

export const decisionConflicts = new Counter({
  name: 'wrs_run_decision_conflicts_total',
  help: 'Run decisions made again because the run had moved on since the state they were made on (an append that met a newer version).',
});

export const strayWorkloadsRemoved = new Counter({
  name: 'wrs_stray_workloads_removed_total',
  help: 'Workloads (containers, Jobs) the cleanup stopped and removed, by provider and reason: terminal (their run is over) or orphan (no run has them).',
  labelNames: ['provider', 'reason'] as const,
});

export const webhookAttempts = new Counter({
  name: 'wrs_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered, status, redirect, timeout, connection, refused_target or secret_unavailable.',
  labelNames: ['outcome'] as const,
});

export const webhookDeliveriesFailed = new Counter({
  name: 'wrs_webhook_deliveries_failed_total',
  help: "Webhook deliveries given up after their last attempt (marked failed; the run's next delivery goes).",
});

export const projectionLag = new Histogram({
  name: 'wrs_projection_lag_seconds',
  help: 'Time from an event being decided (its time) to its projection being committed in Postgres.',
  buckets: LATENCY_BUCKETS,
});

export const dispatchDuration = new Histogram({
  name: 'wrs_dispatch_duration_seconds',
  help: "Time a provider took to answer a submit of a run's workload, by provider and outcome (a run may be submitted again, idempotently, until its dispatch is projected).",
  labelNames: ['provider', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
});

export const sseOpenStreams = new Gauge({
  name: 'wrs_sse_open_streams',
  help: 'Event streams (Server-Sent Events) open on this relay.',
});

export const runWaitsActive = new Gauge({
  name: 'wrs_run_waits_active',
  help: 'Requests on this api waiting for a run to end (`Prefer: wait`).',
});

export const sseEventsSent = new Counter({
  name: 'wrs_sse_events_sent_total',
  help: 'Events written to event streams, by event type.',
  labelNames: ['type'] as const,
});

export const jetstreamRedeliveries = new Counter({
  name: 'wrs_jetstream_redeliveries_total',
  help: 'Messages this worker received again (a previous delivery was not acknowledged), by consumer.',
  labelNames: ['consumer'] as const,
});

/** Filled at scrape time from JetStream's consumer info (see setConsumerInfoSource). */
export const jetstreamConsumerPending = new Gauge({
  name: 'wrs_jetstream_consumer_pending_messages',
  help: 'Messages in the stream not yet delivered to the consumer (its backlog), by consumer.',
  labelNames: ['consumer'] as const,
  collect: consumerGauge((s) => s.pending),
});

export const jetstreamConsumerAckPending = new Gauge({
  name: 'wrs_jetstream_consumer_ack_pending_messages',
  help: 'Messages delivered to the consumer and not yet acknowledged, by consumer.',
  labelNames: ['consumer'] as const,
  collect: consumerGauge((s) => s.ackPending),
});

export const jetstreamConsumerRedelivered = new Gauge({
  name: 'wrs_jetstream_consumer_redelivered_messages',
  help: 'Messages the consumer has redelivered and that are still unacknowledged, by consumer.',
  labelNames: ['consumer'] as const,
  collect: consumerGauge((s) => s.redelivered),
});

/** Filled at scrape time from the projection (see setRunStatisticsSource). */
export const activeRuns = new Gauge({
  name: 'wrs_runs_active',
  help: 'Runs not yet terminal, by state, `waiting` for queued runs that wait for capacity (the same on every worker replica: aggregate with max).',
  labelNames: ['state'] as const,
  collect: runStatisticsGauge((r) => r.count),
});

export const oldestUnchangedRunAge = new Gauge({
  name: 'wrs_runs_oldest_unchanged_age_seconds',
  help: 'How long the least recently changed non-terminal run in each state (`waiting`: queued and waiting for capacity) has not changed (stuck runs).',
  labelNames: ['state'] as const,
  collect: runStatisticsGauge((r) => r.oldestUnchangedSeconds),
});

/** Counted after the answer (which did not depend on it): a leaked key, or a key pasted as a token. */
export const storedKeysAsBearer = new Counter({
  name: 'wrs_stored_provider_key_as_bearer_total',
  help: 'Bearer values that equal a stored provider credential (checked after answering 401 token_malformed).',
});

/** The process-wide registry every metric above is in (prom-client's default one). */
export const metricsRegistry = register;

export interface ConsumerInfoSnapshot {
  readonly consumer: string;
  readonly pending: number;
  readonly ackPending: number;
  readonly redelivered: number;
}

export interface RunStatistics {
  readonly state: string;
  readonly count: number;
  readonly oldestUnchangedSeconds: number;
}

let consumerInfoSource: (() => Promise<ConsumerInfoSnapshot[]>) | undefined;
let runStatisticsSource: (() => Promise<RunStatistics[]>) | undefined;

/** The worker sets where its consumers' figures come from; other services leave these gauges empty. */
export function setConsumerInfoSource(source: (() => Promise<ConsumerInfoSnapshot[]>) | undefined): void {
  consumerInfoSource = source;
}

export function setRunStatisticsSource(source: (() => Promise<RunStatistics[]>) | undefined): void {
  runStatisticsSource = source;
}

/**
 * The registry collects every metric at once (in parallel): gauges fed by one source share one call
 * per scrape instead of asking JetStream or Postgres once per gauge.
 */
function shared<T>(load: () => Promise<T[]>): () => Promise<T[]> {
  let inFlight: Promise<T[]> | undefined;
  return () => {
    inFlight ??= load().finally(() => setTimeout(() => (inFlight = undefined), 100).unref());
    return inFlight;
  };
}

// A scrape must not fail because JetStream or Postgres is away: the series are then absent.
const consumerSnapshots = shared(() => consumerInfoSource?.().catch(() => []) ?? Promise.resolve([]));
const runStatistics = shared(() => runStatisticsSource?.().catch(() => []) ?? Promise.resolve([]));

function consumerGauge(value: (s: ConsumerInfoSnapshot) => number) {
  return async function (this: Gauge<'consumer'>): Promise<void> {
    const snapshots = await consumerSnapshots();
    this.reset();
    for (const s of snapshots) {
      this.set({ consumer: s.consumer }, value(s));
    }
  };
}

function runStatisticsGauge(value: (r: RunStatistics) => number) {
  return async function (this: Gauge<'state'>): Promise<void> {
    const rows = await runStatistics();
    this.reset();
    for (const r of rows) {
      this.set({ state: r.state }, value(r));
    }
  };
}
