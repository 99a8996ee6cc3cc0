import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { checkKeyFits, type KeySource } from './key-source';

export class JwksUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot read the JWKS at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DependencyError';
  }
}

/**
 * Verification keys from the identity provider's JWKS, by `kid` so keys can rotate. An unknown kid
 * refetches at most once per `minRefreshMs`, so forged kids cannot flood the provider; the set is also
 * refreshed in the background, never on the request path, so a provider outage does not refuse tokens.
 */
export class JwksKeySource implements KeySource {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly options: { refreshMs: number; minRefreshMs: number } = { refreshMs: 600_000, minRefreshMs: 30_000 },
  ) {
    this.remote = createRemoteJWKSet(new URL(url), {
      cooldownDuration: options.minRefreshMs,
      cacheMaxAge: Number.POSITIVE_INFINITY,
      timeoutDuration: 5000,
    });
  }

  readonly resolve: JWTVerifyGetKey = async (header, token) => {
    // Only signing keys: jose's selection already skips `use: enc`; the key must fit the algorithm.
    return checkKeyFits(header.alg, await this.remote(header, token));
  };

  async start(): Promise<void> {
    try {
      await this.remote.reload();
    } catch (error) {
      throw new JwksUnavailableError(this.url, error);
    }
    this.timer = setInterval(() => void this.remote.reload().catch(() => undefined), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  has(kid: string): boolean {
    return this.remote.jwks()?.keys.some((k) => k.kid === kid && k.use !== 'enc') ?? false;
  }
}
