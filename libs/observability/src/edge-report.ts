import type { EdgeAnswer } from '@wrs/problem';
import type { AppLogger } from './logger';
import { edgeAnswers } from './metrics/catalogue';

/**
 * One log line and one metric sample per answer given at the edge: such answers never reach the
 * request log (no route ran), and a client broken by them, or one probing them, must still show.
 */
export function edgeReporter(logger: AppLogger): (answer: EdgeAnswer) => void {
  return (answer) => {
    edgeAnswers.inc({ code: answer.code, reason: answer.reason });
    const fields = { status: answer.status, code: answer.code, reason: answer.reason, requestId: answer.requestId };
    if (answer.status >= 500) {
      logger.error(fields, 'edge answer');
    } else {
      logger.warn(fields, 'edge answer');
    }
  };
}
