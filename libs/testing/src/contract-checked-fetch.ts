import { contractValidator } from './contract-client';
import type { ObservedResponse } from './contract-validator';
import { parseJsonOrUndefined } from './parse-json';
import { fetchResendingOnReset } from './reset-retry';

export interface CheckedFetch {
  /** A fetch that records each exchange and checks each answer against the contract. */
  readonly fetch: typeof fetch;
  /** Every request made through it, with its method, URL and headers. */
  readonly sent: { method: string; url: string; headers: Headers; at: number; status?: number; retryAfter?: string | null }[];
  /** Contract violations seen (a test asserts this is empty: a throw inside fetch would look like a network failure). */
  readonly violations: string[];
}

/** The contract's server URL: what follows it in a URL names the operation. */
const API_PREFIX = '/api/v1';

/**
 * For a client under test: its real fetch, with every answer validated against the contract by the
 * operation its method and path name (event streams: status and headers; their events are checked by
 * the test). The answer handed on is untouched (a clone is read).
 */
export function contractCheckedFetch(apiRoot: string): CheckedFetch {
  const sent: CheckedFetch['sent'] = [];
  const violations: string[] = [];
  const checked: typeof fetch = async (input, init) => {
    const url = urlOf(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const record: CheckedFetch['sent'][number] = { method, url, headers: new Headers(init?.headers), at: Date.now() };
    sent.push(record);
    const response = await fetch(input, init);
    record.status = response.status;
    record.retryAfter = response.headers.get('retry-after');
    const path = new URL(url).pathname.slice(new URL(apiRoot).pathname.length);
    const template = contractValidator().operationFor(method, path);
    if (!template) {
      // A client only calls operations of the contract: any other request is its bug.
      violations.push(`${method} ${path} is no operation of the contract`);
      return response;
    }
    try {
      contractValidator().assertResponse(method, template, await observe(response));
    } catch (error) {
      violations.push((error as Error).message);
    }
    return response;
  };
  return { fetch: checked, sent, violations };
}

/**
 * A test's own request to the API (under /api/v1), for what ContractClient cannot send or read (an
 * event stream, a method or path outside the contract): the answer is checked against the contract and
 * returned untouched; a violation throws.
 */
export async function apiFetch(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetchResendingOnReset(url, init);
  assertApiAnswer(init?.method ?? 'GET', url, await observe(response));
  return response;
}

/**
 * Checks an answer from the API by the operation its method and URL name; a request that names none
 * must have been answered 404 `route_not_found` or 405 `method_not_allowed`.
 */
export function assertApiAnswer(method: string, url: string, observed: ObservedResponse): void {
  const pathname = new URL(url).pathname;
  const at = pathname.indexOf(API_PREFIX);
  if (at === -1) {
    throw new Error(`${url} is not under ${API_PREFIX}: not an API request`);
  }
  const path = pathname.slice(at + API_PREFIX.length);
  const template = contractValidator().operationFor(method, path);
  if (template) {
    contractValidator().assertResponse(method.toUpperCase(), template, observed);
  } else {
    contractValidator().assertOutsideContract(method.toUpperCase(), path, observed);
  }
}

/** Status, headers and (from a clone) the body; an event stream's body is left to whoever reads it. */
async function observe(response: Response): Promise<ObservedResponse> {
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const text = isStream ? '' : await response.clone().text();
  return { status: response.status, headers: response.headers, text, body: parseJsonOrUndefined(text) };
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
}
