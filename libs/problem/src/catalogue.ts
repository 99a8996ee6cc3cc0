/**
 * Problem codes with their HTTP status, retryability and title. Clients branch on `code` and status,
 * never on `title`; a test checks the contract's enum against this list.
 */
export interface ProblemDefinition {
  readonly status: number;
  readonly retryable: boolean;
  readonly title: string;
}

export const PROBLEMS = {
  bad_request: { status: 400, retryable: false, title: 'The HTTP request could not be parsed.' },
  validation_failed: { status: 400, retryable: false, title: 'The request is not valid.' },
  malformed_json: { status: 400, retryable: false, title: 'The request body is not valid JSON.' },
  idempotency_key_missing: { status: 400, retryable: false, title: 'The Idempotency-Key header is required.' },
  idempotency_key_invalid: {
    status: 400,
    retryable: false,
    title: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
  },
  unsupported_provider: { status: 400, retryable: false, title: 'The provider is not offered here.' },
  unsupported_region: { status: 400, retryable: false, title: 'The region is not offered by the provider.' },
  invalid_last_event_id: {
    status: 400,
    retryable: false,
    title: 'Last-Event-ID must be a non-negative integer.',
  },
  invalid_cursor: {
    status: 400,
    retryable: false,
    title: 'The cursor was not made by this service; pass a nextCursor unchanged, or start again without one.',
  },
  token_missing: { status: 401, retryable: false, title: 'A bearer token is required.' },
  token_malformed: { status: 401, retryable: false, title: 'The bearer token is malformed.' },
  token_invalid_signature: { status: 401, retryable: false, title: 'The bearer token signature is not valid.' },
  token_expired: { status: 401, retryable: false, title: 'The bearer token has expired.' },
  token_claims_invalid: { status: 401, retryable: false, title: 'The bearer token is not valid for this service.' },
  token_revoked: { status: 401, retryable: false, title: 'The bearer token has been revoked.' },
  provider_key_not_token: {
    status: 401,
    retryable: false,
    title: 'A provider key is not an API token. Store it as a provider credential; never send it as a token.',
  },
  session_invalid: { status: 401, retryable: false, title: 'The session has ended or does not exist; sign in again.' },
  credential_in_url: {
    status: 400,
    retryable: false,
    title: 'Credentials must never be sent in a URL; use the Authorization header.',
  },
  workspace_header_required: {
    status: 400,
    retryable: false,
    title: 'This token is not bound to one workspace: name it with X-Service-Workspace-ID.',
  },
  csrf_failed: {
    status: 403,
    retryable: false,
    title: 'A change made with a browser session needs the X-CSRF-Token header and a same-origin request.',
  },
  workspace_mismatch: {
    status: 403,
    retryable: false,
    title: 'The X-Service-Workspace-ID header names a different workspace than the token.',
  },
  route_not_found: { status: 404, retryable: false, title: 'No such route.' },
  run_not_found: { status: 404, retryable: false, title: 'The run does not exist.' },
  workspace_not_found: { status: 404, retryable: false, title: 'The workspace does not exist.' },
  method_not_allowed: { status: 405, retryable: false, title: 'The method is not allowed on this resource.' },
  request_timeout: {
    status: 408,
    retryable: true,
    title: 'The request (headers or body) did not arrive in time; the connection is closed.',
  },
  expectation_failed: { status: 417, retryable: false, title: 'The Expect header names an expectation this service does not meet.' },
  body_too_complex: {
    status: 400,
    retryable: false,
    title: 'The JSON body is nested too deeply or has too many members.',
  },
  not_acceptable: { status: 406, retryable: false, title: 'The requested media type cannot be produced.' },
  provider_credential_not_found: { status: 404, retryable: false, title: 'The provider credential does not exist.' },
  webhook_not_found: { status: 404, retryable: false, title: 'The webhook endpoint does not exist.' },
  webhook_limit_reached: {
    status: 400,
    retryable: false,
    title: 'The workspace has as many webhook endpoints as it may; delete one first.',
  },
  idempotency_conflict: {
    status: 409,
    retryable: false,
    title: 'The Idempotency-Key was already used with a different request.',
  },
  idempotency_in_flight: {
    status: 409,
    retryable: true,
    title: 'A request with this Idempotency-Key is still being processed; retry after a moment.',
  },
  version_conflict: { status: 409, retryable: false, title: 'The run has changed since the version given.' },
  approval_conflict: { status: 409, retryable: false, title: 'The operation conflicts with a pending approval.' },
  payload_too_large: { status: 413, retryable: false, title: 'The request body is too large.' },
  unsupported_media_type: { status: 415, retryable: false, title: 'The request body must be application/json.' },
  request_header_fields_too_large: {
    status: 431,
    retryable: false,
    title: 'The request line or headers are too large.',
  },
  rate_limited: {
    status: 429,
    retryable: true,
    title: 'Too many requests; slow down and retry after the time given.',
  },
  active_runs_quota_exceeded: {
    status: 429,
    retryable: true,
    title: 'The workspace has as many unfinished runs as it may; retry when some have finished.',
  },
  too_many_streams: {
    status: 429,
    retryable: true,
    title: 'The workspace has too many open event streams; retry after a moment.',
  },
  internal_error: { status: 500, retryable: true, title: 'An unexpected error occurred.' },
  dependency_unavailable: {
    status: 503,
    retryable: true,
    title: 'A service this request depends on is unavailable.',
  },
  upstream_timeout: {
    status: 504,
    retryable: true,
    title: 'The service behind the gateway did not answer in time.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEMS;

export const PROBLEM_CODES = Object.keys(PROBLEMS) as ProblemCode[];

/** Stable, documented type URI of a problem code (RFC 9457 `type`). */
export function problemTypeUri(code: ProblemCode): string {
  return `urn:workload-run-service:problem:${code}`;
}
