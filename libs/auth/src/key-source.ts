import type { KeyObject } from 'node:crypto';

/** Where verification keys come from: files (development) or an identity provider's JWKS. */
export interface KeySource {
  /** The key with this id, if known now. */
  key(kid: string): KeyObject | undefined;
  /** Called when a token names an unknown kid: a JWKS source may refetch (rate-limited). */
  refresh?(): Promise<void>;
}

export class StaticKeySource implements KeySource {
  constructor(private readonly keys: ReadonlyMap<string, KeyObject>) {}

  key(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }
}
