/** What `wrs` exits with, so scripts can branch without parsing output. Documented in docs/client.md. */
export const EXIT = {
  /** The command worked; for a followed run: it succeeded. */
  ok: 0,
  /** The followed run failed. */
  runFailed: 1,
  /** Bad arguments or configuration (no token, a config file others can read). */
  usage: 2,
  /** The followed run was canceled. */
  runCanceled: 3,
  /** The API answered with an error (its code and request id are printed). */
  apiError: 4,
  /** No answer: network failure or time-out, after the retries the spec allows. */
  networkError: 5,
  /** Something wrs did not expect (a bug in wrs, or a stream a relay broke): the error is printed. */
  unexpected: 70,
  /** Writing to stdout or stderr failed (a full disk, /dev/full), not for a closed pipe (exit 0): the output is incomplete. */
  outputFailed: 74,
  /** Interrupted (Ctrl-C) while following: the run goes on. */
  interrupted: 130,
} as const;

/**
 * One of EXIT, or (with --workload-exit-code) the followed workload's own exit code, 0-255: a number,
 * since a workload may exit with any of them.
 */
export type ExitCode = number;

/** A mistake in how wrs was called or configured. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
