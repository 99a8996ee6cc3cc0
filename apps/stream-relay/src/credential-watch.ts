import type { Principal } from '@wrs/auth';
import { sessionHashOf, type CredentialEnd } from '@wrs/messaging';

/** Why a stream was ended by the relay on its credential's account (the final SSE comment says which). */
export type CredentialEndReason = 'credential_expired' | 'credential_revoked' | 'session_ended';

/** The revocation stream as the relay follows it (TokenRevocations). */
export interface CredentialEnds {
  isRevoked(tokenId: string): boolean;
  isSessionEnded(sessionHash: string): boolean;
  onEnd(listener: (end: CredentialEnd) => void): () => void;
}

type Ender = (reason: CredentialEndReason) => void;

/**
 * Ends open streams when their credential ends: at expiry, or when any replica revokes the token or signs
 * the session out. Driven by the revocation stream (no polling), with streams indexed by token and session.
 */
export class CredentialWatch {
  private readonly byToken = new Map<string, Set<Ender>>();
  private readonly bySession = new Map<string, Set<Ender>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly ends: CredentialEnds) {
    this.unsubscribe = ends.onEnd((end) => {
      if ('tokenId' in end) {
        this.fire(this.byToken.get(end.tokenId), 'credential_revoked');
      } else {
        this.fire(this.bySession.get(end.sessionHash), 'session_ended');
      }
    });
  }

  /** Calls `onEnd` once, when the principal's credential ends; the returned function stops watching. */
  watch(principal: Principal, onEnd: Ender): () => void {
    let ended = false;
    const once: Ender = (reason) => {
      if (!ended) {
        ended = true;
        onEnd(reason);
      }
    };
    const sessionHash = principal.sessionId !== undefined ? sessionHashOf(principal.sessionId) : undefined;
    add(this.byToken, principal.tokenId, once);
    if (sessionHash !== undefined) {
      add(this.bySession, sessionHash, once);
    }
    const timer = setTimeout(() => once('credential_expired'), Math.max(0, principal.expiresAt * 1000 - Date.now()));
    // Ended between the request's authentication and now: the message has already gone by.
    if (this.ends.isRevoked(principal.tokenId)) {
      queueMicrotask(() => once('credential_revoked'));
    } else if (sessionHash !== undefined && this.ends.isSessionEnded(sessionHash)) {
      queueMicrotask(() => once('session_ended'));
    }
    return () => {
      clearTimeout(timer);
      remove(this.byToken, principal.tokenId, once);
      if (sessionHash !== undefined) {
        remove(this.bySession, sessionHash, once);
      }
    };
  }

  close(): void {
    this.unsubscribe();
  }

  private fire(enders: Set<Ender> | undefined, reason: CredentialEndReason): void {
    for (const end of [...(enders ?? [])]) {
      end(reason);
    }
  }
}

function add(index: Map<string, Set<Ender>>, key: string, ender: Ender): void {
  const set = index.get(key) ?? new Set<Ender>();
  set.add(ender);
  index.set(key, set);
}

function remove(index: Map<string, Set<Ender>>, key: string, ender: Ender): void {
  const set = index.get(key);
  set?.delete(ender);
  if (set?.size === 0) {
    index.delete(key);
  }
}
