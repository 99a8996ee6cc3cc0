import type { Answer } from './transport';
import type { ApiResult } from './types';

/** What a client call returns: the answer's body as the operation's type, with how it was answered. */
export function resultOf<T>(answer: Answer): ApiResult<T> {
  return {
    value: answer.json as T,
    status: answer.status,
    requestId: answer.requestId,
    attempts: answer.attempts,
    headers: answer.headers,
  };
}
