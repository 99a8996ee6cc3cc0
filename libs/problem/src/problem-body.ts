import type { Immutable, Problem } from '@wrs/contracts/types';
import { PROBLEMS, problemTypeUri, type ProblemCode } from './catalogue';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9457 members plus the service's own (`code`, `requestId`, `retryable`, `params`): the contract's Problem. */
export type ProblemBody = Immutable<Problem>;

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
    // Each optional member is a literal of the contract's type too, so one it drops fails here.
    ...(extra.detail ? ({ detail: extra.detail } satisfies Partial<Problem>) : {}),
    ...(extra.instance ? ({ instance: extra.instance } satisfies Partial<Problem>) : {}),
    code,
    requestId,
    retryable: def.retryable,
    ...(extra.params ? ({ params: extra.params } satisfies Partial<Problem>) : {}),
  };
}
