/**
 * A test's fetch. Node's fetch can send a request on an idle keep-alive connection that the server is
 * closing at that very moment (nodejs/undici#3141, nodejs/node#47130): it then fails with ECONNRESET or
 * "other side closed" before any answer, the server having read nothing. On a loaded box the client
 * notices the close late, so such a failure is sent once more, on a fresh connection. A body that can
 * be sent only once (a stream) is never sent again.
 */
export async function fetchResendingOnReset(input: string | URL, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    const body = init?.body;
    if (!closedBeforeAnswer(error) || !(body === undefined || body === null || typeof body === 'string')) {
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
