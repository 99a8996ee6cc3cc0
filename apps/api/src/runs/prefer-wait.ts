/** The longest `Prefer: wait` honoured, in seconds: well below the edge's 60 s for a silent upstream. */
export const MAX_PREFER_WAIT_SECONDS = 30;

/**
 * The seconds a `Prefer: wait=N` header asks for (RFC 7240), capped at the maximum; null when the
 * header asks for no wait. A preference the server cannot read is ignored, as the RFC says.
 */
export function preferredWaitSeconds(header: string | undefined, maxSeconds = MAX_PREFER_WAIT_SECONDS): number | null {
  if (!header) {
    return null;
  }
  for (const preference of header.split(',')) {
    const [name, value] = (preference.split(';')[0] ?? '').split('=').map((part) => part.trim());
    if (name?.toLowerCase() !== 'wait' || value === undefined) {
      continue;
    }
    const seconds = /^"?(\d{1,9})"?$/.exec(value)?.[1];
    if (seconds !== undefined) {
      return Math.min(Number(seconds), maxSeconds);
    }
  }
  return null;
}
