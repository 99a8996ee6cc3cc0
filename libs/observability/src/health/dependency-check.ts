/** One thing readiness depends on: `probe` resolves when it answers, rejects (or times out) when not. */
export interface DependencyCheck {
  readonly name: string;
  probe(): Promise<unknown>;
  /** A dependency the service keeps serving without (it fails open): reported, but never makes it unready. */
  readonly optional?: boolean;
}

/** How long a probe may take before the dependency counts as down (kubelet's own time-out is 1 s by default). */
const PROBE_TIMEOUT_MS = 800;

export async function probeWithin(check: DependencyCheck, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Postgres answers a trivial query (through the service's own pool, so a dead pool shows). */
export function postgresCheck(db: { query(sql: string): Promise<unknown> }): DependencyCheck {
  return { name: 'postgres', probe: () => db.query('SELECT 1') };
}

/** NATS answers a round trip (`flush` is a PING/PONG on the service's own connection). */
export function natsCheck(nc: { flush(): Promise<void> }): DependencyCheck {
  return { name: 'nats', probe: () => nc.flush() };
}

/** Redis answers PING. Optional where the service fails open without it. */
export function redisCheck(redis: { ping(): Promise<string> }, optional: boolean): DependencyCheck {
  return { name: 'redis', probe: () => redis.ping(), optional };
}
