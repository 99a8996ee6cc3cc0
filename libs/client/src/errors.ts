import type { ProblemCode } from './types';

/** A code for answers that carried no Problem body (e.g. an intermediary's HTML 502). */
export type ClientSideCode = 'unexpected_response';

/**
 * The server answered with an error. Decide by `status` and `code`; `title` and `detail` are for people.
 * The message never contains the token (the client never puts it anywhere but the Authorization header).
 */
export class WrsApiError extends Error {
  override readonly name = 'WrsApiError';

  constructor(
    readonly status: number,
    readonly code: ProblemCode | ClientSideCode,
    readonly retryable: boolean,
    /** The server's request id (X-Request-ID / problem `requestId`): quote it to support. */
    readonly requestId: string,
    readonly title: string,
    readonly detail: string | undefined,
    readonly params: Record<string, unknown> | undefined,
    /** Requests made before giving up (1 when it was not retried). */
    readonly attempts: number,
  ) {
    super(`${status} ${code}: ${detail ?? title} (request ${requestId}${attempts > 1 ? `, after ${attempts} attempts` : ''})`);
  }
}

/** No answer: the connection failed, was cut, or timed out. */
export class WrsNetworkError extends Error {
  override readonly name = 'WrsNetworkError';

  constructor(
    reason: string,
    /** The X-Request-ID the client sent with the last attempt (the server may have logged it). */
    readonly requestId: string,
    readonly attempts: number,
  ) {
    super(`network error: ${reason} (request ${requestId}${attempts > 1 ? `, after ${attempts} attempts` : ''})`);
  }
}

/** The deployed server's contract is not one this client was built for. */
export class WrsContractMismatchError extends Error {
  override readonly name = 'WrsContractMismatchError';

  constructor(
    readonly serverVersion: string,
    readonly pinnedVersion: string,
  ) {
    super(`the server speaks contract ${serverVersion}; this client is pinned to ${pinnedVersion} (same major, server not older)`);
  }
}

/** The client was set up wrongly (a base URL with credentials in it, a call that needs a token without one). */
export class WrsConfigurationError extends Error {
  override readonly name = 'WrsConfigurationError';
}
