/**
 * Retry-After of the 503 for a feature whose encryption key the operator has not configured: what fixes
 * it is an operator, not a moment, so a client that follows the contract waits a minute, not a second.
 */
export const NOT_CONFIGURED_RETRY_SECONDS = 60;
