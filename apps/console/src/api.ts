/**
 * Calls to the API on this origin. The cookie goes by itself; the CSRF token is kept in memory only and
 * sent with every change. Failures become ApiError with the problem's `code` and `requestId`.
 */
export const API_BASE = '/api/v1';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
    readonly retryable: boolean,
    readonly params?: Record<string, unknown>,
  ) {
    super(code);
  }
}

export interface ApiResponse<T> {
  readonly body: T;
  readonly headers: Headers;
  readonly status: number;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the server says the session is gone, so the console can show the sign-in form. */
let onSessionEnded: () => void = () => undefined;

export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

export async function call<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (method !== 'GET' && csrfToken) {
    headers['x-csrf-token'] = csrfToken;
  }
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch {
    throw new ApiError(0, 'network_error', null, true);
  }
  const text = await res.text();
  const body = parse(text);
  if (!res.ok) {
    const problem = (body ?? {}) as { code?: string; requestId?: string; retryable?: boolean; params?: Record<string, unknown> };
    const error = new ApiError(
      res.status,
      problem.code ?? `http_${res.status}`,
      problem.requestId ?? res.headers.get('x-request-id'),
      problem.retryable ?? res.status >= 500,
      problem.params,
    );
    if (res.status === 401 && !headers['authorization']) {
      onSessionEnded();
    }
    throw error;
  }
  return { body: body as T, headers: res.headers, status: res.status };
}

function parse(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
