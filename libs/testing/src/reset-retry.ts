/**
 * A test's fetch. Node's fetch can send a request on an idle keep-alive connection that the server is
 * closing at that very moment (nodejs/undici#3141, nodejs/node#47130); it then fails with ECONNRESET
 * or "other side closed" before any answer. On a loaded box the client notices the close late. The
 * same failure also follows a server that read the request, acted and dropped the connection, so only
 * a request that is safe to repeat is sent once more, on a fresh connection: GET, HEAD or OPTIONS, or
 * one with an Idempotency-Key (a second send is answered as a replay), and never a streamed body.
 */
export async function fetchResendingOnReset(input: string | URL, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (!closedBeforeAnswer(error) || !safeToRepeat(init)) {
      throw error;
    }
    return fetch(input, init);
  }
}

/** fetch's own failure for a connection the peer closed or reset before the answer began. */
export function closedBeforeAnswer(error: unknown): boolean {
  // By name: fetch's errors come from Node's own realm, not a test sandbox's (Jest's), so instanceof fails.
  const failure = error as { name?: unknown; cause?: { code?: unknown } } | undefined;
  const code = failure?.cause?.code;
  return failure?.name === 'TypeError' && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE');
}

function safeToRepeat(init: RequestInit | undefined): boolean {
  const body = init?.body;
  if (!(body === undefined || body === null || typeof body === 'string')) {
    return false;
  }
  const method = (init?.method ?? 'GET').toUpperCase();
  return ['GET', 'HEAD', 'OPTIONS'].includes(method) || new Headers(init?.headers).has('idempotency-key');
}
