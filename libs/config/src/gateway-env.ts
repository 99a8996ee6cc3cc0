import { Matches, ValidateBy, type ValidationArguments } from 'class-validator';
import { OperationsEnv } from './env-schemas';
import { IntBetween } from './env-values';

/** Variables of the gateway, which needs no NATS, Postgres or Redis. */
export class GatewayEnv extends OperationsEnv {
  @IntBetween(0, 65535)
  PORT = 8080;

  @Matches(/^[\d.:a-fA-F]+$|^localhost$/, { message: 'HOST must be an IP address or localhost' })
  HOST = '127.0.0.1';

  /** One or more (comma-separated) http:// URLs of api replicas. */
  @Matches(/^http:\/\/[^\s,]+(,http:\/\/[^\s,]+)*$/, { message: 'API_UPSTREAM must be http:// URLs, comma-separated' })
  API_UPSTREAM!: string;

  @Matches(/^http:\/\/[^\s,]+(,http:\/\/[^\s,]+)*$/, { message: 'RELAY_UPSTREAM must be http:// URLs, comma-separated' })
  RELAY_UPSTREAM!: string;

  /** A client must have sent its request headers within this. */
  @IntBetween(100, 300000)
  GATEWAY_HEADERS_TIMEOUT_MS = 10000;

  /** ... and its whole request, body included (then 408 `request_timeout`). */
  @IntBetween(200, 3600000)
  GATEWAY_REQUEST_TIMEOUT_MS = 30000;

  /** A client socket with nothing moving either way is closed (event streams send heartbeats within it). */
  @IntBetween(200, 3600000)
  GATEWAY_IDLE_TIMEOUT_MS = 120000;

  /**
   * An upstream that sends nothing for this long is given up (504 `upstream_timeout` before an answer;
   * a stream is cut, and resumes with Last-Event-ID); above the relay's SSE_HEARTBEAT_MS. An idle bound,
   * never a total one: a stream that keeps sending lasts.
   */
  @IntBetween(200, 3600000)
  GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS = 60000;

  @IntBetween(1, 1000000)
  GATEWAY_MAX_CONNECTIONS = 10000;

  /**
   * How long a request without a body waits, trying each replica in turn, while every api or relay
   * replica refuses connections (a restart), before 503 `dependency_unavailable`; 0 tries each once. An
   * `EventSource` gives up for good on a 5xx, so this should cover how long a replica takes to start.
   * Below the idle time-out: a held request sends nothing, and would be cut as idle first.
   */
  @IntBetween(0, 600000)
  @ValidateBy({
    name: 'belowIdleTimeout',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        typeof value === 'number' && value < (args?.object as GatewayEnv).GATEWAY_IDLE_TIMEOUT_MS,
      defaultMessage: () => 'must be below GATEWAY_IDLE_TIMEOUT_MS (a request held that long is cut as idle)',
    },
  })
  GATEWAY_RESTART_GRACE_MS = 5000;
}
