import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IntBetween, toInt, toNumber } from './env-values';
import { TrustedProxies } from './trusted-proxies';

/** The operator port (health and metrics), draining and tracing: every long-running service has them. */
export class OperationsEnv {
  /** Port of /metrics, /health/live and /health/ready; unset: none (the ingress never routes to it). */
  @IsOptional()
  @IntBetween(0, 65535)
  METRICS_PORT?: number;

  @Matches(/^[\d.:a-fA-F]+$|^localhost$/, { message: 'METRICS_HOST must be an IP address or localhost' })
  METRICS_HOST = '127.0.0.1';

  /**
   * After SIGTERM, how long the service keeps serving with readiness false before it stops accepting:
   * the time Kubernetes needs to take it out of its Service's endpoints.
   */
  @IntBetween(0, 60000)
  SHUTDOWN_DELAY_MS = 0;

  @IsIn(['debug', 'info', 'warn', 'error'])
  LOG_LEVEL = 'info';

  /** OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); unset: tracing is off. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s?#]+$/, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL without query' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /**
   * Which traces are recorded when tracing is on (the OpenTelemetry names). The default records a
   * share of the traces that start here (OTEL_TRACES_SAMPLER_ARG) and every trace a caller's sampled
   * `traceparent` continues, so what tracing costs stays a bounded share of the work under load.
   */
  @IsIn(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
  OTEL_TRACES_SAMPLER = 'parentbased_traceidratio';

  /** The share (0 to 1) of traces the `traceidratio` samplers record; tests set 1. */
  @Transform(toNumber)
  @IsNumber()
  @Min(0)
  @Max(1)
  OTEL_TRACES_SAMPLER_ARG = 0.1;
}

/** Variables every service reads. Defaults are the local servers on loopback. */
export class CommonEnv extends OperationsEnv {
  @Matches(/^(nats|tls|wss?):\/\/[^\s]+$|^[\w.-]+:\d+$/, { message: 'NATS_URL must be a nats:// URL or host:port' })
  NATS_URL = 'nats://127.0.0.1:4222';

  /**
   * How long a service waits at start for NATS, Postgres and the schema its build expects (migrate
   * applies it): 0 fails at once (an orchestrator restarts it); Compose sets it, as it starts all at once.
   */
  @IntBetween(0, 600)
  STARTUP_WAIT_SECONDS = 0;

  @Matches(/^postgres(ql)?:\/\/[^\s]+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA = 'public';

  @Matches(/^rediss?:\/\/[^\s]+$/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of stream names, subjects and Redis keys, so several stacks can share one server. */
  @Matches(/^[a-z][a-z0-9]{0,15}$/, { message: 'NAMESPACE must be 1-16 lower-case letters or digits' })
  NAMESPACE = 'wrs';

  /** How long an Idempotency-Key is remembered (and its run's create command kept). */
  @IntBetween(1, 30 * 24 * 3600)
  IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

  /**
   * Longest lifetime (exp - iat) an accepted token may have. Every service reads it: the revocation
   * stream keeps a revocation this long (plus clock skew), and every service may (re)create that stream.
   */
  @IntBetween(60, 24 * 3600)
  AUTH_TOKEN_MAX_TTL_SECONDS = 3600;

  /** Copies JetStream keeps of each stream: 1 on one server, 3 on a 3-node cluster (production). */
  @IntBetween(1, 5)
  JETSTREAM_REPLICAS = 1;
}

/** Variables of the services that serve HTTP (api, stream-relay). */
export class HttpServiceEnv extends CommonEnv {
  @IntBetween(0, 65535)
  PORT = 0;

  @IsString()
  @Matches(/^[\d.:a-fA-F]+$|^localhost$/, { message: 'HOST must be an IP address or localhost' })
  HOST = '127.0.0.1';

  /** PEM files (comma-separated) of the public keys that verify access tokens; or AUTH_JWKS_URL. */
  @IsOptional()
  @IsString()
  AUTH_PUBLIC_KEY_FILE?: string;

  /** An identity provider's JWKS (e.g. Keycloak's .../protocol/openid-connect/certs). */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'AUTH_JWKS_URL must be an http(s) URL' })
  AUTH_JWKS_URL?: string;

  /** Origins (comma-separated) whose pages may call the API from a browser (CORS, CSRF origin check). */
  @IsOptional()
  @Matches(/^(https?:\/\/[^\s,]+)(,https?:\/\/[^\s,]+)*$/, { message: 'CORS_ORIGINS must be a comma-separated list of origins' })
  CORS_ORIGINS?: string;

  /**
   * The origins users reach the service at (scheme://host[:port], comma-separated), e.g.
   * https://runs.example.com; a cookie-authenticated change must come from one of them or CORS_ORIGINS.
   * Unset: the request's Host and scheme, right only with no TLS proxy in front (X-Forwarded-* is never trusted).
   */
  @IsOptional()
  @Matches(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?(,https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?)*$/, {
    message: 'PUBLIC_ORIGINS must be comma-separated origins (scheme://host[:port], no path, no trailing slash)',
  })
  PUBLIC_ORIGINS?: string;

  /** File with the key (>= 32 random bytes, base64) of provider-credential fingerprints. */
  @IsOptional()
  @IsString()
  CREDENTIALS_FINGERPRINT_KEY_FILE?: string;

  @IsString()
  @IsNotEmpty()
  AUTH_ISSUER = 'workload-run-service-dev';

  @IsString()
  @IsNotEmpty()
  AUTH_AUDIENCE = 'workload-run-service';

  @IsOptional()
  @IsString()
  BUILD_COMMIT?: string;

  /** Default limits of a workspace (a workspace's record may override them). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LIMIT_REQUESTS_PER_MINUTE = 600;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  LIMIT_TOKEN_REQUESTS_PER_MINUTE = 300;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  LIMIT_ACTIVE_RUNS = 100;

  @IntBetween(1000, 60000)
  SSE_HEARTBEAT_MS = 15000;

  /** A stream is closed after this long; clients resume with Last-Event-ID. */
  @IntBetween(1, 24 * 3600)
  SSE_MAX_DURATION_SECONDS = 1800;

  /** Bytes a slow client may leave unread before it is disconnected (it resumes from its last id). */
  @IntBetween(1024, 64 * 1024 * 1024)
  SSE_MAX_BUFFERED_BYTES = 1024 * 1024;

  /** How long a client that does not read may keep a full socket before it is disconnected. */
  @IntBetween(100, 600000)
  SSE_DRAIN_TIMEOUT_MS = 30000;

  @IntBetween(1, 100000)
  SSE_MAX_STREAMS_PER_WORKSPACE = 100;

  /** A client must have sent its request headers within this (then 408 `request_timeout`). */
  @IntBetween(100, 300000)
  HTTP_HEADERS_TIMEOUT_MS = 10000;

  /** ... and its whole request, body included; above HTTP_HEADERS_TIMEOUT_MS. */
  @IntBetween(200, 3600000)
  HTTP_REQUEST_TIMEOUT_MS = 30000;

  /**
   * The proxy hops whose X-Forwarded-For is believed for the client address (Express `trust proxy`):
   * a number of hops in front of the service (1: the ingress; the client is what it appended), or
   * addresses, CIDRs or loopback/linklocal/uniquelocal, comma-separated. Any other peer's header is
   * ignored: the address is the socket's. It keys the failed-authentication limit.
   */
  @TrustedProxies()
  TRUSTED_PROXIES = 'loopback';

  /** Requests with a credential that fails, per client address and minute, before they get 429. */
  @IntBetween(1, 1000000)
  AUTH_FAILURES_PER_MINUTE = 60;
}

export class ApiEnv extends HttpServiceEnv {
  /** Public key-encryption keys for provider credentials, `id:file.pem,...`, the current one first. */
  @IsOptional()
  @IsString()
  CREDENTIALS_KEK_PUBLIC_KEYS?: string;

  /** How long a browser session lasts. */
  @IntBetween(60, 7 * 24 * 3600)
  SESSION_TTL_SECONDS = 3600;

  /** Fault injection for tests: the name of a crash site (see failpoint.ts). Never set in production. */
  @IsOptional()
  @Matches(/^[a-z.-]*$/, { message: 'FAILPOINT must be a crash-site name' })
  FAILPOINT?: string;

  /** JSON list of provider offers: [{"provider":"simulator","regions":["local-1"],"priority":0}]. */
  @IsOptional()
  @IsString()
  PROVIDERS_JSON?: string;
}

export class RelayEnv extends HttpServiceEnv {}

/** Variables of `npm run token`: the issuer and audience the services check, and the key folder. */
export class TokenEnv extends HttpServiceEnv {
  /** Where the development key pair lives (default: .local/keys in the repository). */
  @IsOptional()
  @IsString()
  DEV_KEYS_DIR?: string;
}
