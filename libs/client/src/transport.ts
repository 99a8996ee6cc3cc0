import { headerToken } from './bearer-token';
import { SYSTEM_CLOCK, type Clock } from './clock';
import { WrsApiError, WrsConfigurationError, WrsNetworkError } from './errors';
import { PINNED_CONTRACT_VERSION } from './generated/contract-version';
import { redactSecret } from './redact';
import { DEFAULT_RETRY_POLICY, nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry-policy';
import type { Problem } from './types';

/** A token, or a function that returns a current one (so a long follow can pick up a refreshed token). */
export type TokenSource = string | (() => string | Promise<string>);

export interface TransportOptions {
  /** The API root, ending in /api/v1. No credentials or query in it. */
  readonly baseUrl: string;
  readonly token?: TokenSource;
  /** Sent as X-Service-Workspace-ID, so a token for another workspace is caught (403 workspace_mismatch). */
  readonly workspaceId?: string;
  readonly retry?: Partial<RetryPolicy>;
  /** Time to the response headers of one attempt before it counts as a network failure. */
  readonly attemptTimeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  readonly random?: () => number;
}

export interface OutgoingRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The path after the base URL, already encoded. */
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly authenticated: boolean;
  /**
   * Safe or idempotent (a GET, a keyed create, a cancel): only these are retried, and only on a network
   * failure, a 429, a 5xx whose problem says `retryable`, or 409 `idempotency_in_flight`.
   */
  readonly retrySafe: boolean;
  readonly accept: string;
  readonly signal?: AbortSignal;
  /** Hand back the open response (an event stream) instead of reading its body. */
  readonly stream?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly requestId: string;
  readonly attempts: number;
  /** The parsed JSON body (not for streams). */
  readonly json: unknown;
  /** For streams: the open response and the controller that cuts it. */
  readonly response?: Response;
  readonly abort?: AbortController;
}

const USER_AGENT = `workload-run-service-client (contract ${PINNED_CONTRACT_VERSION})`;

/** One place that talks HTTP: headers, per-attempt time-outs, and the retry rules of the spec. */
export class Transport {
  readonly baseUrl: string;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = checkedBaseUrl(options.baseUrl);
    if (typeof options.token === 'string' && options.token !== '') {
      // A token no header can carry is refused here, before any request, not after 8 failing ones.
      headerToken(options.token);
    }
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.fetchImpl = options.fetch ?? fetch;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.random = options.random ?? Math.random;
  }

  async send(request: OutgoingRequest): Promise<Answer> {
    const startedAtMs = this.clock.now();
    const logicalId = globalThis.crypto.randomUUID();
    for (let attempts = 1; ; attempts++) {
      // Attempts of one logical request share a stem, so support can line them up.
      const requestId = attempts === 1 ? logicalId : `${logicalId}.${attempts}`;
      const outcome = await this.attempt(request, requestId, attempts);
      if (outcome.kind === 'answer') {
        return outcome.answer;
      }
      const delay =
        outcome.retryable && request.retrySafe
          ? nextRetryDelayMs(
              this.policy,
              { attempts, startedAtMs, nowMs: this.clock.now(), retryAfterMs: outcome.retryAfterMs },
              this.random,
            )
          : undefined;
      if (delay === undefined) {
        throw outcome.error;
      }
      await this.clock.sleep(delay, request.signal);
    }
  }

  private async attempt(request: OutgoingRequest, requestId: string, attempts: number): Promise<Outcome> {
    const headers = await this.headersFor(request, requestId);
    assertSendable(headers);
    const abort = new AbortController();
    const onCallerAbort = (): void => abort.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const timer = setTimeout(() => abort.abort(new Error('no answer in time')), this.options.attemptTimeoutMs ?? 30_000);
    try {
      const response = await this.fetchImpl(`${this.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: abort.signal,
      });
      const answeredId = response.headers.get('x-request-id') ?? requestId;
      if (response.ok && request.stream) {
        clearTimeout(timer);
        return {
          kind: 'answer',
          answer: { status: response.status, headers: response.headers, requestId: answeredId, attempts, json: undefined, response, abort },
        };
      }
      const text = await response.text();
      const json = parseJson(text, response.headers.get('content-type'));
      if (response.ok) {
        return { kind: 'answer', answer: { status: response.status, headers: response.headers, requestId: answeredId, attempts, json } };
      }
      return this.failure(response, json, answeredId, attempts);
    } catch (error) {
      if (request.signal?.aborted) {
        throw request.signal.reason;
      }
      // undici's TypeError('fetch failed') says little; its cause names the socket error. Whatever it
      // says is cleared of the token, which only the Authorization header should ever hold.
      const reason = redactSecret(
        error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error),
        bearerOf(headers),
      );
      if (isRefused(error)) {
        // Nothing listens at the base URL: no server got the request, and none will answer a retry
        // soon. The spec retries answers (429, retryable 5xx); reporting at once beats 8 silent tries.
        return {
          kind: 'failure',
          retryable: false,
          retryAfterMs: undefined,
          error: new WrsNetworkError(`${reason} (nothing listens at ${this.baseUrl}; not retried)`, requestId, attempts),
        };
      }
      if (isBadPort(error)) {
        // fetch refuses ports on the WHATWG "bad port" list before connecting: no retry can succeed.
        return {
          kind: 'failure',
          retryable: false,
          retryAfterMs: undefined,
          error: new WrsNetworkError(`${reason} (fetch never connects to the port of ${this.baseUrl}; not retried)`, requestId, attempts),
        };
      }
      return { kind: 'failure', retryable: true, retryAfterMs: undefined, error: new WrsNetworkError(reason, requestId, attempts) };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private failure(response: Response, json: unknown, requestId: string, attempts: number): Outcome {
    const problem = isProblem(json) ? json : undefined;
    const code = problem?.code ?? 'unexpected_response';
    const retryable =
      response.status === 429 ||
      (response.status >= 500 && problem?.retryable === true) ||
      (response.status === 409 && code === 'idempotency_in_flight');
    const error = new WrsApiError(
      response.status,
      code,
      problem?.retryable ?? false,
      problem?.requestId ?? requestId,
      problem?.title ?? `HTTP ${response.status}`,
      problem?.detail,
      problem?.params,
      attempts,
    );
    return { kind: 'failure', retryable, retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after'), this.clock.now()), error };
  }

  private async headersFor(request: OutgoingRequest, requestId: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      accept: request.accept,
      'user-agent': USER_AGENT,
      'x-request-id': requestId,
      ...request.headers,
    };
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    if (request.authenticated) {
      const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
      if (!token) {
        throw new WrsConfigurationError('this call needs a token (none was configured)');
      }
      // Checked on each use: a token function may hand back a broken one at any time.
      headers['authorization'] = `Bearer ${headerToken(token)}`;
      if (this.options.workspaceId) {
        headers['x-service-workspace-id'] = this.options.workspaceId;
      }
    }
    return headers;
  }
}

type Outcome =
  | { kind: 'answer'; answer: Answer }
  | { kind: 'failure'; retryable: boolean; retryAfterMs: number | undefined; error: WrsApiError | WrsNetworkError };

/** The base URL may not carry credentials or a query: a token must never travel in a URL. */
function checkedBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WrsConfigurationError('baseUrl is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WrsConfigurationError('baseUrl must be http or https');
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new WrsConfigurationError('baseUrl must not carry credentials, a query or a fragment');
  }
  return url.toString().replace(/\/+$/, '');
}

/** The token of an Authorization header, so an error message can be cleared of it. */
function bearerOf(headers: Record<string, string>): string | undefined {
  return headers['authorization']?.replace(/^Bearer /, '');
}

/**
 * Refuses headers fetch could not send (a value with a line break, e.g. a workspace id): fetch's own
 * TypeError looked like a network failure and was retried 8 times. It quotes the value, so the message
 * is cleared of the token.
 */
function assertSendable(headers: Record<string, string>): void {
  try {
    new Headers(headers);
  } catch (error) {
    const reason = redactSecret(error instanceof Error ? error.message : String(error), bearerOf(headers));
    throw new WrsConfigurationError(`the request cannot be sent: ${reason}`);
  }
}

/** A connection refused outright (ECONNREFUSED), as undici reports it in the error's cause. */
function isRefused(error: unknown): boolean {
  // Read by shape: fetch's errors may come from another realm (a test runner's), failing instanceof.
  const cause = typeof error === 'object' && error !== null ? (error as { cause?: { code?: unknown } }).cause : undefined;
  return cause?.code === 'ECONNREFUSED';
}

/** fetch's refusal of a port on the WHATWG "bad port" list (e.g. 9, 25, 6000), made before any connection. */
function isBadPort(error: unknown): boolean {
  const cause = typeof error === 'object' && error !== null ? (error as { cause?: { message?: unknown } }).cause : undefined;
  return cause?.message === 'bad port';
}

function parseJson(text: string, contentType: string | null): unknown {
  if (!text || !(contentType ?? '').includes('json')) {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isProblem(value: unknown): value is Problem {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Problem).code === 'string' &&
    typeof (value as Problem).status === 'number'
  );
}
