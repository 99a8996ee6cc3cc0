import { createHash } from 'node:crypto';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { sessionHashOf } from '@wrs/auth';
import type { StreamNames } from './names';
import { DEFAULT_STREAM_SETTINGS } from './streams';

/** What ended: a token (revoked, with every session made from it) or one browser session (logout). */
export type CredentialEnd = { readonly tokenId: string } | { readonly sessionHash: string };

// The relay and the specs take it from here too.
export { sessionHashOf };

/**
 * Revoked token ids and ended sessions, shared through a JetStream stream that each api and relay
 * process reads at start and then follows. A revocation reaches every process within milliseconds and is
 * checked without a network call; listeners hear of it (the relay ends open streams).
 */
export class TokenRevocations {
  // id -> when it was revoked (ms); in revocation order, so the oldest are forgotten first.
  private readonly revoked = new Map<string, number>();
  private readonly endedSessions = new Map<string, number>();
  private readonly listeners = new Set<(end: CredentialEnd) => void>();
  private messages: ConsumerMessages | undefined;

  /**
   * `forgetAfterMs`: how long an entry matters, the stream's own retention (the longest a revoked
   * credential could still be presented); older entries are dropped so memory follows the stream.
   */
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    private readonly forgetAfterMs: number = DEFAULT_STREAM_SETTINGS.revocationRetentionMs,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Resolves once every revocation already in the stream is known. */
  async start(): Promise<void> {
    const info = await this.jsm.streams.info(this.names.revocationsStream);
    const known = info.state.last_seq;
    const consumer = await this.js.consumers.get(this.names.revocationsStream, {
      filter_subjects: this.names.allRevokedTokens(),
      deliver_policy: DeliverPolicy.All,
    });
    this.messages = await consumer.consume();
    const messages = this.messages;
    let caughtUp!: () => void;
    const ready = new Promise<void>((resolve) => (caughtUp = resolve));
    if (info.state.messages === 0) {
      caughtUp();
    }
    void (async () => {
      for await (const m of messages) {
        this.record(m.json<{ tokenId?: unknown; sessionHash?: unknown; at?: unknown }>());
        if (m.seq >= known) {
          caughtUp();
        }
      }
    })();
    await ready;
  }

  async stop(): Promise<void> {
    await this.messages?.close();
  }

  isRevoked(tokenId: string): boolean {
    return this.revoked.has(tokenId);
  }

  isSessionEnded(sessionHash: string): boolean {
    return this.endedSessions.has(sessionHash);
  }

  /** Called with every revocation and session end that arrives from now on (from any replica). */
  onEnd(listener: (end: CredentialEnd) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async revoke(tokenId: string): Promise<void> {
    const hash = createHash('sha256').update(tokenId).digest('hex').slice(0, 40);
    const at = new Date(this.clock()).toISOString();
    await this.js.publish(this.names.revokedToken(hash), JSON.stringify({ tokenId, at }));
    this.record({ tokenId, at });
  }

  /** Logout: the session's open streams end on every relay replica. */
  async endSession(sessionId: string): Promise<void> {
    const sessionHash = sessionHashOf(sessionId);
    const at = new Date(this.clock()).toISOString();
    await this.js.publish(this.names.revokedToken(`s${sessionHash.slice(0, 40)}`), JSON.stringify({ sessionHash, at }));
    this.record({ sessionHash, at });
  }

  private record(message: { tokenId?: unknown; sessionHash?: unknown; at?: unknown }): void {
    const parsed = typeof message.at === 'string' ? Date.parse(message.at) : NaN;
    const at = Number.isFinite(parsed) ? parsed : this.clock();
    this.forgetOld();
    let end: CredentialEnd;
    if (typeof message.tokenId === 'string') {
      if (this.revoked.has(message.tokenId)) {
        return; // our own, already recorded when published
      }
      this.revoked.set(message.tokenId, at);
      end = { tokenId: message.tokenId };
    } else if (typeof message.sessionHash === 'string') {
      if (this.endedSessions.has(message.sessionHash)) {
        return;
      }
      this.endedSessions.set(message.sessionHash, at);
      end = { sessionHash: message.sessionHash };
    } else {
      return;
    }
    for (const listener of this.listeners) {
      listener(end);
    }
  }

  /** Number of entries held (revoked tokens and ended sessions), for tests and metrics. */
  get size(): number {
    return this.revoked.size + this.endedSessions.size;
  }

  private forgetOld(): void {
    const horizon = this.clock() - this.forgetAfterMs;
    for (const entries of [this.revoked, this.endedSessions]) {
      for (const [id, at] of entries) {
        if (at >= horizon) {
          break; // revocation order: the rest are newer
        }
        entries.delete(id);
      }
    }
  }
}
