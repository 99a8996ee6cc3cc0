/**
 * Shapes of well-known provider keys (OpenAI, AWS, GitHub and others). Such a bearer value is refused
 * as what it is and never parsed as a JWT, so it cannot leak into a JWT error, a log line or an echo.
 */
const PROVIDER_KEY_SHAPES: readonly RegExp[] = [
  /^sk-ant-/,
  /^sk-[A-Za-z0-9_-]{16,}$/,
  /^(sk|rk|pk)_(live|test)_/,
  /^(AKIA|ASIA)[A-Z0-9]{16}$/,
  /^gh[pousr]_[A-Za-z0-9]{20,}$/,
  /^github_pat_/,
  /^xox[abprs]-/,
  /^AIza[0-9A-Za-z_-]{30,}$/,
  /^hf_[A-Za-z0-9]{20,}$/,
  /^r8_[A-Za-z0-9]{20,}$/,
  /^glpat-/,
];

export function looksLikeProviderKey(value: string): boolean {
  return PROVIDER_KEY_SHAPES.some((shape) => shape.test(value));
}

/** A compact JWS has three base64url segments; anything else is not a candidate access token. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}
