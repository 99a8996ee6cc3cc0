/** Who is calling, in which workspace, and how they proved it. */
export interface Principal {
  readonly workspaceId: string;
  readonly subject: string;
  readonly tokenId: string;
  readonly expiresAt: number;
  readonly via: 'bearer' | 'session';
  /** The session id when `via` is `session` (for logout). */
  readonly sessionId?: string;
  readonly csrfToken?: string;
}

export interface RevocationCheck {
  isRevoked(tokenId: string): boolean;
  /** Has this session (by the SHA-256 hex of its id) been signed out, on any replica? */
  isSessionEnded(sessionHash: string): boolean;
}

/** Does this bearer value equal a stored provider credential (by keyed fingerprint)? */
export interface CredentialFingerprintCheck {
  matches(value: string): Promise<boolean>;
}
