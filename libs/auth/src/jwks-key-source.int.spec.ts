import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { AccessTokenVerifier, keyIdOf, TokenError } from './access-token';
import { JwksKeySource } from './jwks-key-source';

// Local helpers: libs/testing depends on this lib, so this spec cannot import it.

/** Signs any header and claims with any algorithm we allow (or pretend to): for token tests only. */
function signJwt(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
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

function accessClaims(workspace: string | string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
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

/** An identity provider's JWKS endpoint over a real socket, its keys changed by the test. */
describe('keys from a JWKS URL (ES256, RS256, EdDSA; rotation by kid)', () => {
  const es = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ed = generateKeyPairSync('ed25519');
  const rotated = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let published: KeyObject[] = [es.publicKey, rsa.publicKey, ed.publicKey];
  let fetches = 0;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: published.map((k) => ({ ...k.export({ format: 'jwk' }), kid: keyIdOf(k), use: 'sig' })) }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/certs`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const verifierWith = (source: JwksKeySource): AccessTokenVerifier =>
    new AccessTokenVerifier({
      keys: source,
      issuer: 'workload-run-service-dev',
      audience: 'workload-run-service',
      maxTtlSeconds: 3600,
      clockSkewSeconds: 30,
    });

  it('verifies tokens signed with each allowed algorithm', async () => {
    const source = new JwksKeySource(url, { refreshMs: 600_000, minRefreshMs: 0 });
    await source.start();
    const verifier = verifierWith(source);
    for (const [alg, pair] of [
      ['ES256', es],
      ['RS256', rsa],
      ['EdDSA', ed],
    ] as const) {
      const token = signJwt({ alg, typ: 'at+jwt', kid: keyIdOf(pair.publicKey) }, accessClaims('ws-1'), pair.privateKey);
      expect((await verifier.verify(token)).workspaceId).toBe('ws-1');
    }
    source.stop();
  });

  it('refuses an algorithm used with another key type (RS256 header on an EC key)', async () => {
    const source = new JwksKeySource(url, { refreshMs: 600_000, minRefreshMs: 0 });
    await source.start();
    const token = signJwt({ alg: 'RS256', typ: 'at+jwt', kid: keyIdOf(es.publicKey) }, accessClaims('ws-1'), es.privateKey);
    await expect(verifierWith(source).verify(token)).rejects.toMatchObject({ code: 'token_invalid_signature' });
    source.stop();
  });

  it('refuses an RSA key shorter than 2048 bits, even under an allowed algorithm', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    published = [...published, weak.publicKey];
    const source = new JwksKeySource(url, { refreshMs: 600_000, minRefreshMs: 0 });
    await source.start();
    const token = signJwt({ alg: 'RS256', typ: 'at+jwt', kid: keyIdOf(weak.publicKey) }, accessClaims('ws-1'), weak.privateKey);
    await expect(verifierWith(source).verify(token)).rejects.toMatchObject({ code: 'token_invalid_signature' });
    published = published.filter((k) => k !== weak.publicKey);
    source.stop();
  });

  it('picks up a rotated key when a token names a kid it does not know, at most once per interval', async () => {
    const source = new JwksKeySource(url, { refreshMs: 600_000, minRefreshMs: 200 });
    await source.start();
    const verifier = verifierWith(source);
    published = [rotated.publicKey, es.publicKey];
    const token = signJwt({ alg: 'ES256', typ: 'at+jwt', kid: keyIdOf(rotated.publicKey) }, accessClaims('ws-1'), rotated.privateKey);
    await new Promise((r) => setTimeout(r, 250));
    expect((await verifier.verify(token)).workspaceId).toBe('ws-1');
    const before = fetches;
    const forged = signJwt({ alg: 'ES256', typ: 'at+jwt', kid: 'unknown' }, accessClaims('ws-1'), rotated.privateKey);
    await Promise.all(Array.from({ length: 20 }, () => verifier.verify(forged).catch((e: unknown) => e)));
    expect(fetches - before).toBeLessThanOrEqual(1);
    await expect(verifier.verify(forged)).rejects.toBeInstanceOf(TokenError);
    source.stop();
  });

  it('says clearly when the JWKS cannot be read at start', async () => {
    await expect(new JwksKeySource('http://127.0.0.1:1/certs').start()).rejects.toThrow('cannot read the JWKS at http://127.0.0.1:1/certs');
  });
});
