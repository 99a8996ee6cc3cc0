import { contractValidator } from './contract-client';

export interface CheckedFetch {
  /** A fetch that records each exchange and checks each answer against the contract. */
  readonly fetch: typeof fetch;
  /** Every request made through it, with its method, URL and headers. */
  readonly sent: { method: string; url: string; headers: Headers; at: number; status?: number; retryAfter?: string | null }[];
  /** Contract violations seen (a test asserts this is empty: a throw inside fetch would look like a network failure). */
  readonly violations: string[];
}

/**
 * For a client under test: its real fetch, with every answer validated against the contract by the
 * operation its method and path name (event streams: status and headers; their events are checked by
 * the test). The answer handed on is untouched (a clone is read).
 */
export function contractCheckedFetch(apiRoot: string): CheckedFetch {
  const sent: CheckedFetch['sent'] = [];
  const violations: string[] = [];
  const operations = contractValidator()
    .operations()
    .map((op) => {
      const [method, template] = op.split(' ') as [string, string];
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/:]+')}$`);
      return { method, template, pattern };
    });
  const checked: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    const record: CheckedFetch['sent'][number] = { method, url, headers: new Headers(init?.headers), at: Date.now() };
    sent.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    record.retryAfter = response.headers.get('retry-after');
    const path = new URL(url).pathname.slice(new URL(apiRoot).pathname.length);
    const operation = operations.find((op) => op.method === method && op.pattern.test(path));
    if (!operation) {
      violations.push(`${method} ${path} is no operation of the contract`);
      return response;
    }
    const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const text = isStream ? '' : await response.clone().text();
    try {
      contractValidator().assertResponse(method, operation.template, { status: response.status, headers: response.headers, text, body: parse(text) });
    } catch (error) {
      violations.push((error as Error).message);
    }
    return response;
  };
  return { fetch: checked, sent, violations };
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
