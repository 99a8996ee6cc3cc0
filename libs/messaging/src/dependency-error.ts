import { redactUrl } from '@wrs/config';

/** A dependency that cannot be reached at start: a message for the operator, not a stack trace. */
export class DependencyError extends Error {
  constructor(
    readonly dependency: string,
    url: string,
    cause: unknown,
  ) {
    super(`cannot connect to ${dependency} at ${redactUrl(url)}: ${describe(cause)}`);
    this.name = 'DependencyError';
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return typeof code === 'string' && !cause.message.includes(code) ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
