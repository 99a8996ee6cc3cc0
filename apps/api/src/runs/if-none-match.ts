/**
 * Whether an `If-None-Match` header (RFC 9110 13.1.2) names `etag`: `*`, or one of its listed tags, weak
 * or not (the comparison is weak for this header). Decided here and not by Express's freshness check,
 * which a request's `Cache-Control: no-cache` overrides, and every `fetch` sends one with this header.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) {
    return false;
  }
  const tags = header.split(',').map((tag) => tag.trim());
  return tags.includes('*') || tags.some((tag) => tag.replace(/^W\//, '') === etag);
}
