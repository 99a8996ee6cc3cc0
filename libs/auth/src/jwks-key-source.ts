import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { KeySource } from './key-source';

export class JwksUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot read the JWKS at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'DependencyError';
  }
}

/**
 * Verification keys from an identity provider's JWKS (e.g. Keycloak's `/protocol/openid-connect/certs`).
 * Several keys at once, by `kid`, so the provider can rotate; refetched periodically and when a token
 * names a kid we do not know, at most once per `minRefreshMs`, so a flood of forged kids cannot turn
 * us into a load generator against the provider.
 */
export class JwksKeySource implements KeySource {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private inflight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly options: { refreshMs: number; minRefreshMs: number } = { refreshMs: 600_000, minRefreshMs: 30_000 },
  ) {}

  async start(): Promise<void> {
    await this.fetchKeys();
    this.timer = setInterval(() => void this.fetchKeys().catch(() => undefined), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  key(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }

  async refresh(): Promise<void> {
    if (Date.now() - this.lastFetch < this.options.minRefreshMs) {
      return;
    }
    this.inflight ??= this.fetchKeys()
      .catch(() => undefined)
      .finally(() => (this.inflight = undefined));
    await this.inflight;
  }

  private async fetchKeys(): Promise<void> {
    this.lastFetch = Date.now();
    let body: { keys?: (JsonWebKey & { kid?: string; use?: string })[] };
    try {
      const res = await fetch(this.url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) {
        throw new Error(`HTTP ${res.status}`);
      }
      body = (await res.json()) as typeof body;
    } catch (error) {
      throw new JwksUnavailableError(this.url, error);
    }
    const keys = new Map<string, KeyObject>();
    for (const jwk of body.keys ?? []) {
      if (typeof jwk.kid === 'string' && jwk.use !== 'enc') {
        try {
          keys.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
        } catch {
          // a key we cannot use (unknown type): skip it, keep the others
        }
      }
    }
    this.keys = keys;
  }
}
