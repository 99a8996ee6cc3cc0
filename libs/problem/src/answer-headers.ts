/**
 * Headers every api and relay answer needs: no MIME sniffing, HSTS, and no cross-site reads without
 * CORS. One list for every writer: the middleware, the socket-level answers and the ingress error page.
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'Cross-Origin-Resource-Policy': 'same-origin',
});
