import type { Immutable, Session } from '@wrs/contracts/types';

/** A session as answered, a literal of the contract's type; `expiresAt` in epoch seconds. */
export function toSession(session: {
  readonly workspaceId: string;
  readonly subject: string;
  readonly expiresAt: number;
  readonly csrfToken: string;
}): Immutable<Session> {
  return {
    workspaceId: session.workspaceId,
    subject: session.subject,
    expiresAt: new Date(session.expiresAt * 1000).toISOString(),
    csrfToken: session.csrfToken,
  };
}
