import { ProblemError } from '@wrs/problem';

/** The longest `Cancel-After`: a week, queue time included. */
export const MAX_CANCEL_AFTER_SECONDS = 7 * 24 * 3600;

/**
 * The seconds a `Cancel-After` header gives a run from its create (as Replicate's: `90`, `90s`, `5m`,
 * `1h30m`), or undefined without the header. A value out of form or range is a 400 naming the header.
 */
export function cancelAfterSeconds(header: string | undefined): number | undefined {
  if (header === undefined) {
    return undefined;
  }
  const match = /^(?:(\d+)|(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?)$/.exec(header.trim());
  const [, plain, hours, minutes, seconds] = match ?? [];
  const total = plain !== undefined ? Number(plain) : Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + Number(seconds ?? 0);
  if (!match || header.trim() === '' || !Number.isSafeInteger(total) || total < 1 || total > MAX_CANCEL_AFTER_SECONDS) {
    throw new ProblemError('validation_failed', {
      params: {
        errors: [
          {
            field: 'Cancel-After',
            message: `Cancel-After must be a duration of 1 s to ${MAX_CANCEL_AFTER_SECONDS} s: seconds (90) or 1h30m15s`,
            min: 1,
            max: MAX_CANCEL_AFTER_SECONDS,
          },
        ],
      },
    });
  }
  return total;
}
