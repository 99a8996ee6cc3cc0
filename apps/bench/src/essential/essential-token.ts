import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { jwtVerify } from 'jose';

/**
 * The token check of the essential program: the bearer token's EdDSA signature and claims verified by
 * jose on every request (no cache: the stack's verifier remembers a verified token, which the bench's
 * one token makes a hit), and the workspace it is bound to. Null when the token does not pass.
 */
export function tokenCheck(publicKeyFile: string): (req: IncomingMessage) => Promise<string | null> {
  const key = createPublicKey(readFileSync(publicKeyFile));
  return async (req) => {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) {
      return null;
    }
    try {
      const { payload } = await jwtVerify(header.slice(7), key, {
        algorithms: ['EdDSA'],
        typ: 'at+jwt',
        issuer: 'workload-run-service-dev',
        audience: 'workload-run-service',
        requiredClaims: ['exp', 'sub'],
      });
      return typeof payload['ws'] === 'string' ? payload['ws'] : null;
    } catch {
      return null;
    }
  };
}
