import { generateKeyPairSync, sign } from 'node:crypto';
import { AccessTokenVerifier, keyIdOf, mintAccessToken, TokenError, type SigningKey } from './access-token';
import { StaticKeySource } from './key-source';

const NOW = Date.parse('2026-11-21T12:00:00Z');

function keyPair(): { key: SigningKey; publicKey: ReturnType<typeof generateKeyPairSync>['publicKey'] } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { key: { kid: keyIdOf(publicKey), privateKey }, publicKey };
}

const current = keyPair();
const rotatedOut = keyPair();
const verifier = new AccessTokenVerifier({
  keys: new StaticKeySource(
    new Map([
      [current.key.kid, current.publicKey],
      [rotatedOut.key.kid, rotatedOut.publicKey],
    ]),
  ),
  issuer: 'iss',
  audience: 'aud',
  maxTtlSeconds: 3600,
  clockSkewSeconds: 30,
});

const mint = (overrides: Partial<Parameters<typeof mintAccessToken>[1]> = {}, key = current.key): Promise<string> =>
  mintAccessToken(key, { issuer: 'iss', audience: 'aud', workspaceId: 'ws-1', subject: 'alice', ttlSeconds: 900, now: NOW, ...overrides });

function forge(header: object, claims: object, key = current.key): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof TokenError) {
      return error.code;
    }
    throw error;
  }
  return 'accepted';
}

describe('access tokens', () => {
  it('accepts a fresh token and yields its workspace', async () => {
    expect(await verifier.verify(await mint(), NOW)).toMatchObject({ workspaceId: 'ws-1', subject: 'alice' });
  });
  it('accepts tokens of every configured key (rotation)', async () => {
    expect((await verifier.verify(await mint({}, rotatedOut.key), NOW)).workspaceId).toBe('ws-1');
  });
  it('refuses an expired token, allowing the clock skew', async () => {
    expect(await codeOf(async () => verifier.verify(await mint(), NOW + 900_000 + 29_000))).toBe('accepted');
    expect(await codeOf(async () => verifier.verify(await mint(), NOW + 900_000 + 31_000))).toBe('token_expired');
  });
  it('refuses a token not yet valid', async () => {
    expect(await codeOf(async () => verifier.verify(await mint({ now: NOW + 120_000 }), NOW))).toBe('token_claims_invalid');
  });
  it('refuses a token that lives longer than the maximum', async () => {
    expect(await codeOf(async () => verifier.verify(await mint({ ttlSeconds: 7200 }), NOW))).toBe('token_claims_invalid');
  });
  it('refuses another issuer or audience', async () => {
    expect(await codeOf(async () => verifier.verify(await mint({ issuer: 'other' }), NOW))).toBe('token_claims_invalid');
    expect(await codeOf(async () => verifier.verify(await mint({ audience: 'other' }), NOW))).toBe('token_claims_invalid');
  });
  it('refuses alg none and HMAC whatever the signature', async () => {
    const claims = JSON.parse(Buffer.from((await mint()).split('.')[1] ?? '', 'base64url').toString());
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    expect(await codeOf(() => verifier.verify(none, NOW))).toBe('token_malformed');
    expect(await codeOf(() => verifier.verify(forge({ alg: 'HS256', typ: 'at+jwt', kid: current.key.kid }, claims), NOW))).toBe(
      'token_invalid_signature',
    );
  });
  it('refuses a JWT that is not an access token (typ)', async () => {
    const claims = JSON.parse(Buffer.from((await mint()).split('.')[1] ?? '', 'base64url').toString());
    expect(await codeOf(() => verifier.verify(forge({ alg: 'EdDSA', typ: 'JWT', kid: current.key.kid }, claims), NOW))).toBe(
      'token_claims_invalid',
    );
  });
  it('refuses a token signed by an unknown key', async () => {
    expect(await codeOf(async () => verifier.verify(await mint({}, { ...keyPair().key, kid: current.key.kid }), NOW))).toBe(
      'token_invalid_signature',
    );
  });
  it('refuses a tampered payload', async () => {
    const [h, , s] = (await mint()).split('.');
    const evil = Buffer.from(JSON.stringify({ ws: 'other' })).toString('base64url');
    expect(await codeOf(() => verifier.verify(`${h}.${evil}.${s}`, NOW))).toBe('token_invalid_signature');
  });
  it('refuses garbage as malformed and never echoes it', async () => {
    expect(await codeOf(() => verifier.verify('sk-live-1234', NOW))).toBe('token_malformed');
    try {
      await verifier.verify('abc.def.ghi', NOW);
    } catch (error) {
      expect(String(error)).not.toContain('abc.def.ghi');
    }
  });
  it('refuses a workspace id that is not subject-safe', async () => {
    expect(await codeOf(async () => verifier.verify(await mint({ workspaceId: 'ws.>' }), NOW))).toBe('token_claims_invalid');
  });
});

describe("a token whose signature verified before (remembered, so a client's every request is cheap)", () => {
  it('is refused once it expires', async () => {
    const token = await mint();
    expect(await codeOf(() => verifier.verify(token, NOW))).toBe('accepted');
    expect(await codeOf(() => verifier.verify(token, NOW + 900_000 + 31_000))).toBe('token_expired');
  });

  it('is refused once its key is no longer among the verification keys', async () => {
    const keys = new Map([[current.key.kid, current.publicKey]]);
    const rotating = new AccessTokenVerifier({
      keys: new StaticKeySource(keys),
      issuer: 'iss',
      audience: 'aud',
      maxTtlSeconds: 3600,
      clockSkewSeconds: 30,
    });
    const token = await mint();
    expect(await codeOf(() => rotating.verify(token, NOW))).toBe('accepted');
    keys.delete(current.key.kid);
    expect(await codeOf(() => rotating.verify(token, NOW))).toBe('token_invalid_signature');
  });

  it('remembers a bounded number of tokens and still verifies the ones it forgot', async () => {
    const small = new AccessTokenVerifier(
      {
        keys: new StaticKeySource(new Map([[current.key.kid, current.publicKey]])),
        issuer: 'iss',
        audience: 'aud',
        maxTtlSeconds: 3600,
        clockSkewSeconds: 30,
      },
      2,
    );
    const tokens = [await mint(), await mint(), await mint()];
    for (const token of [...tokens, ...tokens]) {
      expect(await codeOf(() => small.verify(token, NOW))).toBe('accepted');
    }
    expect((small as unknown as { verified: Map<string, unknown> }).verified.size).toBe(2);
  });
});

describe('tokens not bound to one workspace', () => {
  it('yields the allowed workspaces of a `wss` token, and no bound workspace', async () => {
    const token = await mintAccessToken(current.key, {
      issuer: 'iss',
      audience: 'aud',
      workspaceId: ['ws-1', 'ws-2'],
      subject: 'svc',
      ttlSeconds: 900,
      now: NOW,
    });
    expect(await verifier.verify(token, NOW)).toMatchObject({ workspaceId: null, allowedWorkspaces: ['ws-1', 'ws-2'] });
  });
});
