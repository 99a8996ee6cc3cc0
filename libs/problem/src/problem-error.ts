import type { ProblemCode } from './catalogue';

export interface ProblemOptions {
  readonly detail?: string;
  readonly params?: Record<string, unknown>;
  /** Extra response headers, e.g. `Retry-After` or `Allow`. */
  readonly headers?: Record<string, string>;
}

/**
 * The one error type that crosses into HTTP: it names a catalogue code. The domain throws its own errors
 * (`RunNotFoundError`), and the service that called it turns them into this one; the filter maps no other.
 */
export class ProblemError extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly options: ProblemOptions = {},
  ) {
    super(options.detail ?? code);
    this.name = 'ProblemError';
  }
}
