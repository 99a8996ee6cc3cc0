export type TokenErrorCode = 'token_malformed' | 'token_invalid_signature' | 'token_expired' | 'token_claims_invalid' | 'token_revoked';

export class TokenError extends Error {
  constructor(
    readonly code: TokenErrorCode,
    reason: string,
  ) {
    // The reason names what failed, never the token itself.
    super(reason);
    this.name = 'TokenError';
  }
}
