import { PROBLEMS, problemTypeUri, type ProblemCode } from './catalogue';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 members plus the service's own: `code`, `requestId`, `retryable`, `params`. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly code: ProblemCode;
  readonly requestId: string;
  readonly retryable: boolean;
  readonly params?: Record<string, unknown>;
}

export function problemBody(
  code: ProblemCode,
  requestId: string,
  extra: { detail?: string; instance?: string; params?: Record<string, unknown> } = {},
): ProblemBody {
  const def = PROBLEMS[code];
  return {
    type: problemTypeUri(code),
    title: def.title,
    status: def.status,
    ...(extra.detail ? { detail: extra.detail } : {}),
    ...(extra.instance ? { instance: extra.instance } : {}),
    code,
    requestId,
    retryable: def.retryable,
    ...(extra.params ? { params: extra.params } : {}),
  };
}
