/**
 * What every answer of the api and the relay needs, page or not: no MIME sniffing (a JSON body is
 * never run as script or HTML), HTTPS only once a browser has seen us, and no read by another site's
 * page without CORS. One list for every place that writes an answer: the answer-headers middleware
 * (libs/auth), the socket-level and edge answers (edge-guard.ts) and ingress-nginx's error page.
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'Cross-Origin-Resource-Policy': 'same-origin',
});
