import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { TOKEN_CLOCK_SKEW_SECONDS } from '@wrs/config';
import type { StreamNames } from './names';

const NANOS_PER_MS = 1_000_000;

export interface StreamSettings {
  /** How long an Idempotency-Key claim (and the create command) is kept: the retention window. */
  readonly idempotencyRetentionMs: number;
  /** How long a revocation is kept: as long as any token it can revoke may still be accepted. */
  readonly revocationRetentionMs: number;
  /** Copies of each stream in a JetStream cluster (1 by default; 3 in production). */
  readonly replicas?: number;
}

/** The stream settings a service's configuration asks for. */
export function streamSettingsOf(config: {
  IDEMPOTENCY_RETENTION_SECONDS: number;
  JETSTREAM_REPLICAS: number;
  AUTH_TOKEN_MAX_TTL_SECONDS: number;
}): StreamSettings {
  return {
    idempotencyRetentionMs: config.IDEMPOTENCY_RETENTION_SECONDS * 1000,
    revocationRetentionMs: revocationRetentionMs(config.AUTH_TOKEN_MAX_TTL_SECONDS),
    replicas: config.JETSTREAM_REPLICAS,
  };
}

/**
 * The longest a revoked token can still be accepted after its revocation: its lifetime (at most the
 * maximum TTL) plus the skew allowed on `exp`, plus the skew allowed on an `iat` slightly in our future.
 * Sessions end with their token (their lifetime is capped at its `exp`), so no credential lives longer.
 */
export function revocationRetentionMs(maxTokenTtlSeconds: number): number {
  return (maxTokenTtlSeconds + 2 * TOKEN_CLOCK_SKEW_SECONDS) * 1000;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  idempotencyRetentionMs: 24 * 60 * 60 * 1000,
  revocationRetentionMs: revocationRetentionMs(3600),
};

/** Creates the streams if missing (or brings them in line with the settings); safe from every service at start. */
export async function ensureStreams(
  jsm: JetStreamManager,
  names: StreamNames,
  settings: StreamSettings = DEFAULT_STREAM_SETTINGS,
): Promise<void> {
  for (const config of streamConfigs(names, settings)) {
    await addOrUpdate(jsm, config);
  }
}

/** The three streams as configured: run events, commands (with the idempotency claims), revocations. */
export function streamConfigs(names: StreamNames, settings: StreamSettings): StreamConfig[] {
  const num_replicas = settings.replicas ?? 1;
  return [
    {
      num_replicas,
      name: names.eventsStream,
      subjects: [names.allRunEvents()],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      duplicate_window: 2 * 60 * 1000 * NANOS_PER_MS,
    },
    {
      num_replicas,
      name: names.commandsStream,
      subjects: names.commandSubjects(),
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: settings.idempotencyRetentionMs * NANOS_PER_MS,
      // JetStream requires the dedupe window to fit in the retention.
      duplicate_window: Math.min(2 * 60 * 1000, settings.idempotencyRetentionMs) * NANOS_PER_MS,
    },
    {
      num_replicas,
      name: names.revocationsStream,
      subjects: [names.allRevokedTokens()],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: settings.revocationRetentionMs * NANOS_PER_MS,
      duplicate_window: 2 * 60 * 1000 * NANOS_PER_MS,
    },
  ];
}

type StreamConfig = Parameters<JetStreamManager['streams']['add']>[0];

/** Creates the stream, or brings its retention in line with the configuration. */
async function addOrUpdate(jsm: JetStreamManager, config: StreamConfig): Promise<void> {
  const name = config.name as string;
  const existing = await jsm.streams.info(name).catch(() => null);
  if (!existing) {
    await jsm.streams.add(config);
    return;
  }
  const current = existing.config;
  if (
    (config.max_age ?? 0) !== current.max_age ||
    (config.duplicate_window ?? current.duplicate_window) !== current.duplicate_window ||
    (config.num_replicas ?? current.num_replicas) !== current.num_replicas
  ) {
    // A cluster scales a stream's replicas in place; retention follows the configuration.
    await jsm.streams.update(name, {
      ...current,
      max_age: config.max_age ?? 0,
      duplicate_window: config.duplicate_window ?? current.duplicate_window,
      num_replicas: config.num_replicas ?? current.num_replicas,
    });
  }
}
