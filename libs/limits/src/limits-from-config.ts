import { LABEL_LIMITS, LOG_LIMITS } from '@wrs/domain';
import type { WorkspaceLimits } from './workspace-limits';

export interface LimitSettings {
  readonly LIMIT_REQUESTS_PER_MINUTE: number;
  readonly LIMIT_TOKEN_REQUESTS_PER_MINUTE: number;
  readonly LIMIT_ACTIVE_RUNS: number;
  readonly SSE_MAX_STREAMS_PER_WORKSPACE: number;
  readonly SSE_MAX_DURATION_SECONDS: number;
  readonly SSE_HEARTBEAT_MS: number;
  readonly SSE_MAX_BUFFERED_BYTES: number;
  readonly IDEMPOTENCY_RETENTION_SECONDS: number;
}

export function defaultWorkspaceLimits(config: LimitSettings): WorkspaceLimits {
  return {
    requestsPerMinute: config.LIMIT_REQUESTS_PER_MINUTE,
    tokenRequestsPerMinute: config.LIMIT_TOKEN_REQUESTS_PER_MINUTE,
    maxActiveRuns: config.LIMIT_ACTIVE_RUNS,
    maxEventStreams: config.SSE_MAX_STREAMS_PER_WORKSPACE,
  };
}

/** Limits that are the same for every workspace, published with its own in GET /workspaces/current. */
export type ServiceLimits = ReturnType<typeof serviceLimits>;

export function serviceLimits(config: LimitSettings) {
  return {
    maxRequestBodyBytes: 65536,
    maxHeaderBytes: 16384,
    requestTimeoutSeconds: 30,
    idempotencyKeyRetentionSeconds: config.IDEMPOTENCY_RETENTION_SECONDS,
    maxStreamDurationSeconds: config.SSE_MAX_DURATION_SECONDS,
    streamHeartbeatSeconds: Math.ceil(config.SSE_HEARTBEAT_MS / 1000),
    maxStreamBufferedBytes: config.SSE_MAX_BUFFERED_BYTES,
    maxLogLinesPerRun: LOG_LIMITS.maxLinesPerRun,
    maxLogLineLength: LOG_LIMITS.maxLineLength,
    maxImageLength: 512,
    maxCommandEntries: 64,
    maxArgs: 256,
    maxEnvEntries: 64,
    maxStringLength: 4096,
    maxRunTimeoutSeconds: 86400,
    maxLabels: LABEL_LIMITS.maxLabels,
  };
}
