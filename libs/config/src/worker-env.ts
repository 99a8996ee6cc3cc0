import { IsIn, IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { CommonEnv } from './env-schemas';
import { IntBetween } from './env-values';

/** The run-worker's pooled Postgres connections. */
export const WORKER_DATABASE_POOL_SIZE = 10;

/** Connections of that pool the webhook senders never take: dispatch, the projection and the reconciler need them. */
export const WORKER_CONNECTIONS_KEPT_FROM_SENDERS = 4;

/** Variables of the run-worker: its providers, credentials and the pace of its reconciler. */
export class WorkerEnv extends CommonEnv {
  /** The Docker Engine API socket (Docker or Podman) of the `container` provider; unset: no such provider. */
  @IsOptional()
  @IsString()
  CONTAINER_ENGINE_SOCKET?: string;

  /** A provider silent (erroring) about a run for this long fails the run: never `running` forever. */
  @IntBetween(1, 86400)
  PROVIDER_UNRESPONSIVE_SECONDS = 300;

  /** How often providers with a global health endpoint (container: the engine's /_ping) are probed. */
  @IntBetween(100, 600000)
  PROVIDER_PROBE_INTERVAL_MS = 10000;

  /** Fault injection for tests: the name of a crash site. Never set in production. */
  @IsOptional()
  @Matches(/^[a-z.-]*$/, { message: 'FAILPOINT must be a crash-site name' })
  FAILPOINT?: string;

  /** Private key-encryption keys, `id:file.pem,...`: the only place provider credentials can be opened. */
  @IsOptional()
  @IsString()
  CREDENTIALS_KEK_PRIVATE_KEYS?: string;

  @IsOptional()
  @IsString()
  PROVIDERS_JSON?: string;

  @IntBetween(10, 60000)
  RECONCILE_INTERVAL_MS = 200;

  /**
   * How long a command or event delivered to a worker may stay unacknowledged before JetStream gives it
   * to another: what a worker that died mid-message costs. It counts from delivery, so it covers the
   * time a message waits in the worker's queue (up to about 500 of them) as well as its handling.
   */
  @IntBetween(5000, 600000)
  JETSTREAM_ACK_WAIT_MS = 30000;

  /** How often each provider's workloads are compared with the runs (stray ones stopped and removed). */
  @IntBetween(100, 3600000)
  WORKLOAD_CLEANUP_INTERVAL_MS = 30000;

  /** A workload whose run is not projected is kept this long after its creation (then removed if no event names its run). */
  @IntBetween(1, 86400)
  WORKLOAD_ORPHAN_GRACE_SECONDS = 120;

  /** Webhook targets in loopback, link-local and private ranges are refused unless this is `true` (SSRF). */
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';

  /** One delivery attempt, connection to answer, at most this long. */
  @IntBetween(100, 60000)
  WEBHOOK_TIMEOUT_MS = 10000;

  /** The most of an endpoint's answer that is read. */
  @IntBetween(0, 1048576)
  WEBHOOK_MAX_RESPONSE_BYTES = 65536;

  /** Retries: the first wait, the longest wait, and the attempts in all (default: about 11 hours). */
  @IntBetween(10, 3600000)
  WEBHOOK_RETRY_BASE_MS = 10000;

  @IntBetween(10, 86400000)
  WEBHOOK_RETRY_MAX_DELAY_MS = 7200000;

  @IntBetween(1, 100)
  WEBHOOK_MAX_ATTEMPTS = 15;

  /**
   * Deliveries one worker process sends at once. Each holds one of the worker's pooled connections for a
   * whole attempt (up to WEBHOOK_TIMEOUT_MS), so enough senders against slow endpoints would leave
   * dispatch and the projection waiting for a connection: a value that leaves too few is refused.
   */
  @IntBetween(1, WORKER_DATABASE_POOL_SIZE)
  @ValidateBy({
    name: 'leavesConnections',
    validator: {
      validate: (value: unknown) => typeof value === 'number' && value <= WORKER_DATABASE_POOL_SIZE - WORKER_CONNECTIONS_KEPT_FROM_SENDERS,
      defaultMessage: () =>
        `must be at most ${WORKER_DATABASE_POOL_SIZE - WORKER_CONNECTIONS_KEPT_FROM_SENDERS}: each sender holds one of the run-worker's ${WORKER_DATABASE_POOL_SIZE} database connections for an attempt, and ${WORKER_CONNECTIONS_KEPT_FROM_SENDERS} stay for dispatch and the projection`,
    },
  })
  WEBHOOK_SENDERS = 4;
}
