import { createHash } from 'node:crypto';
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { StreamNames } from './names';

/**
 * Revoked token ids, shared by every api and relay replica through a JetStream stream: each process
 * reads the whole (short) stream at start and then follows it, so a revocation takes effect everywhere
 * within milliseconds and is checked on every request without a network call.
 */
export class TokenRevocations {
  private readonly revoked = new Set<string>();
  private messages: ConsumerMessages | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
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
        this.revoked.add(m.json<{ tokenId: string }>().tokenId);
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

  async revoke(tokenId: string): Promise<void> {
    const hash = createHash('sha256').update(tokenId).digest('hex').slice(0, 40);
    await this.js.publish(this.names.revokedToken(hash), JSON.stringify({ tokenId, at: new Date().toISOString() }));
    this.revoked.add(tokenId);
  }
}
