/**
 * Errors that mean a dependency (Postgres, NATS, Redis) is unreachable or closed rather than a bug:
 * they become 503 `dependency_unavailable`, retryable, instead of a 500.
 */
const DEPENDENCY_ERROR_NAMES = new Set([
  // typeorm / pg
  'CannotExecuteNotConnectedError',
  'ConnectionIsNotSetError',
  'DatabaseUnavailableError',
  // ours: a store or key source we depend on did not answer
  'DependencyError',
  // nats.js
  'ClosedConnectionError',
  'TimeoutError',
  'NoRespondersError',
  'RequestError',
  'DrainingConnectionError',
  'JetStreamNotEnabled',
  // ioredis
  'MaxRetriesPerRequestError',
]);

const DEPENDENCY_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P03', '08006', '08001']);

const DEPENDENCY_MESSAGES = [
  /Driver not Connected/i,
  /Connection terminated/i,
  /connection (is )?closed/i,
  /timeout exceeded when trying to connect/i,
  // pg's pool once closed (a named statement goes to the pool itself, not through TypeORM).
  /Cannot use a pool after calling end on the pool/,
];

export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const code = (error as Error & { code?: unknown }).code;
  return (
    DEPENDENCY_ERROR_NAMES.has(error.name) ||
    DEPENDENCY_ERROR_NAMES.has(error.constructor.name) ||
    isJetStreamUnavailable(error) ||
    (typeof code === 'string' && DEPENDENCY_ERROR_CODES.has(code)) ||
    DEPENDENCY_MESSAGES.some((m) => m.test(error.message)) ||
    (error.cause !== undefined && error.cause !== error && isDependencyFailure(error.cause))
  );
}

/** nats.js's answer when JetStream has no leader for the request yet (an election, a node restarting): status 503. */
function isJetStreamUnavailable(error: Error): boolean {
  return error.name === 'JetStreamApiError' && (error as Error & { status?: unknown }).status === 503;
}
