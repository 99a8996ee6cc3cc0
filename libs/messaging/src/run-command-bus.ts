import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { StreamNames } from './names';
import { publishTraced } from './traced-publish';
import type { IdempotencyClaim } from './run-commands';

export type ClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyClaim };

/**
 * The api's side of the command stream, which holds only idempotency claims. A claim is the first
 * message on the key's subject (`expect.lastSubjectSequence: 0`), so JetStream alone guarantees one run
 * per (workspace, Idempotency-Key) for the retention window.
 */
export class RunCommandBus {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
  ) {}

  async claimIdempotencyKey(workspaceId: string, keyHash: string, claim: IdempotencyClaim): Promise<ClaimResult> {
    const subject = this.names.idempotencyClaim(workspaceId, keyHash);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.publishFirst('run.idempotency.claim', subject, claim)) {
        return { claimed: true };
      }
      const existing = await this.jsm.streams.getMessage(this.names.commandsStream, { last_by_subj: subject });
      if (existing) {
        return { claimed: false, existing: existing.json<IdempotencyClaim>() };
      }
      // The claim expired between our publish and our read: claim again.
    }
    throw new Error('idempotency claim did not settle');
  }

  /** The claim of a key, if one is held (without claiming it). */
  async findClaim(workspaceId: string, keyHash: string): Promise<IdempotencyClaim | null> {
    const existing = await this.jsm.streams.getMessage(this.names.commandsStream, {
      last_by_subj: this.names.idempotencyClaim(workspaceId, keyHash),
    });
    return existing ? existing.json<IdempotencyClaim>() : null;
  }

  /** True when this publish is the subject's first message; false when one was already there. */
  private async publishFirst(operation: string, subject: string, payload: object): Promise<boolean> {
    try {
      const ack = await publishTraced(this.js, operation, subject, JSON.stringify(payload), { expect: { lastSubjectSequence: 0 } });
      return !ack.duplicate;
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) {
        return false;
      }
      throw error;
    }
  }
}
