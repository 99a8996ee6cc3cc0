import { sign, type KeyObject } from 'node:crypto';

/** Signs any header and claims with any algorithm we allow (or pretend to): for token tests only. */
export function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const alg = header['alg'];
  const signature =
    alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : alg === 'RS256'
        ? sign('sha256', Buffer.from(input), key)
        : sign(null, Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

export function accessClaims(workspace: string | string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: 'workload-run-service-dev',
    aud: 'workload-run-service',
    sub: 'test-user',
    ...(Array.isArray(workspace) ? { wss: workspace } : { ws: workspace }),
    iat: now,
    nbf: now,
    exp: now + 300,
    jti: `jti-${Math.random().toString(36).slice(2)}`,
    ...overrides,
  };
}
