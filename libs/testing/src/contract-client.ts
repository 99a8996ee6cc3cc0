import { ContractValidator, type ObservedResponse } from './contract-validator';
import { parseJsonOrUndefined } from './parse-json';
import { fetchResendingOnReset } from './reset-retry';

export interface CallOptions {
  readonly token?: string;
  readonly headers?: Record<string, string>;
  /** A value to send as JSON, or a raw string sent as it is. */
  readonly body?: unknown;
}

const validator = new ContractValidator();

/**
 * A tiny HTTP client for tests: real sockets (fetch), and every response checked against the contract
 * for the operation it names (`GET /runs/{runId}`), so no test can see a response the contract forbids.
 */
export class ContractClient {
  constructor(readonly baseUrl: string) {}

  async call(operation: string, path: string, options: CallOptions = {}): Promise<ObservedResponse> {
    const [method, template] = operation.split(' ') as [string, string];
    // The answer is checked by the operation named here: a path that names another would check it
    // against the wrong schema.
    const named = validator.operationFor(method, path);
    if (named !== template) {
      throw new Error(
        `${method} ${path} names ${named ? `the operation ${method} ${named}` : 'no operation of the contract'}, not ${operation}`,
      );
    }
    const observed = await sendRequest(method, `${this.baseUrl}${path}`, options);
    validator.assertResponse(method, template, observed);
    return observed;
  }
}

/** One request over a real socket (fetch), the answer read whole and its body parsed as JSON where it is JSON. */
export async function sendRequest(method: string, url: string, options: CallOptions = {}): Promise<ObservedResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) {
    headers['authorization'] = `Bearer ${options.token}`;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetchResendingOnReset(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: parseJsonOrUndefined(text) };
}

export function contractValidator(): ContractValidator {
  return validator;
}
