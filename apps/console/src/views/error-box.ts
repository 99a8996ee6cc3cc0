import { ApiError } from '../api';
import { fill, h } from '../dom';

const EXPLANATIONS: Record<string, string> = {
  network_error: 'The service could not be reached.',
  session_invalid: 'The session has ended; sign in again.',
  csrf_failed: 'The request was refused as a possible cross-site request.',
  version_conflict: 'The run changed since this page loaded it; it has been reloaded, try again.',
  idempotency_in_flight: 'The same request is still being processed; retry in a moment.',
  rate_limited: 'Too many requests; wait a moment.',
};

/**
 * Where a failure is shown: its `code` and `requestId` as the server sent them (what support needs),
 * announced to screen readers. Never the request itself, so never a credential.
 */
export function errorBox(): { element: HTMLElement; show(error: unknown, context?: string): void; clear(): void } {
  const element = h('div', { class: 'error', role: 'alert', hidden: true });
  return {
    element,
    show(error, context) {
      const e = error instanceof ApiError ? error : new ApiError(0, 'client_error', null, false);
      fill(
        element,
        h('p', { class: 'error-title' }, context ? `${context}: ` : '', EXPLANATIONS[e.code] ?? 'The request failed.'),
        h(
          'dl',
          { class: 'error-details' },
          h('dt', {}, 'code'),
          h('dd', {}, h('code', { 'data-error-code': e.code }, e.code)),
          h('dt', {}, 'status'),
          h('dd', {}, e.status === 0 ? 'no answer' : String(e.status)),
          h('dt', {}, 'request id'),
          h('dd', {}, h('code', { 'data-request-id': e.requestId ?? '' }, e.requestId ?? '—')),
        ),
        paramsOf(e),
      );
      element.hidden = false;
    },
    clear() {
      element.hidden = true;
      element.replaceChildren();
    },
  };
}

/** Validation errors name each field; show them, they tell the user what to fix. */
function paramsOf(error: ApiError): HTMLElement | null {
  const errors = error.params?.['errors'];
  if (!Array.isArray(errors) || errors.length === 0) {
    return null;
  }
  return h(
    'ul',
    { class: 'error-fields' },
    ...errors.map((e: { field?: unknown; message?: unknown }) => h('li', {}, `${String(e.field)}: ${String(e.message)}`)),
  );
}
