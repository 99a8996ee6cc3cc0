/**
 * A pasted access token as it can be sent, or null when it cannot be one. Surrounding whitespace is
 * trimmed (a copied token often ends in a newline). Access tokens (JWTs, RFC 6750's b64token) are visible
 * ASCII only: anything else left (a NUL, a line break the field turned into a space, a character beyond
 * Latin-1) would make fetch throw, which reads as "could not reach the service", or the server refuse it.
 */
export function asBearerToken(pasted: string): string | null {
  const token = pasted.trim();
  return /^[\x21-\x7e]+$/.test(token) ? token : null;
}
