import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESSION_COOKIE } from '@wrs/auth';
import type { Request } from 'express';
import { connectRedis } from '@wrs/messaging';
import { storedKeysAsBearer } from '@wrs/observability';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, monitorRedis, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

type Problem = { code: string; title: string };

/** Property 10 on the api (sessions end with their token) and the answers a credential gets. */
describe('sessions, CSRF origins and non-JWT bearer values, on the real api', () => {
  const { key, publicKeyFile } = testSigningKey();
  const fingerprintKeyFile = join(mkdtempSync(join(tmpdir(), 'wrs-fp-')), 'fingerprint.key');
  writeFileSync(fingerprintKeyFile, randomBytes(32).toString('base64'));
  const PUBLIC = 'https://runs.example.com';
  const SIBLING = 'https://console.example.com';
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, {
      PUBLIC_ORIGINS: PUBLIC,
      CORS_ORIGINS: SIBLING,
      CREDENTIALS_FINGERPRINT_KEY_FILE: fingerprintKeyFile,
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000',
      LIMIT_REQUESTS_PER_MINUTE: '100000',
    });
    await api.deps.module.workspaces.ensure('ws-life', 'Lifetimes');
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  async function session(token: string): Promise<{ cookie: string; csrf: string; expiresAt: string }> {
    const res = await api.client.call('POST /sessions', '/sessions', { token });
    expect(res.status).toBe(201);
    const id = /__Host-wrs_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const body = res.body as { csrfToken: string; expiresAt: string };
    return { cookie: `${SESSION_COOKIE}=${id}`, csrf: body.csrfToken, expiresAt: body.expiresAt };
  }

  describe("a session lasts min(SESSION_TTL_SECONDS, its token's exp)", () => {
    it("ends at its token's expiry: used after it, it is 401", async () => {
      const token = testToken(key, 'ws-life', { ttlSeconds: 2 });
      const exp = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { exp: number }).exp;
      const s = await session(token);
      expect(Date.parse(s.expiresAt)).toBe(exp * 1000);
      expect((await api.client.call('GET /sessions/current', '/sessions/current', { headers: { cookie: s.cookie } })).status).toBe(200);
      // Wait (bounded) for the token's expiry to pass, then use the session for a change and a read.
      await eventually(() => Promise.resolve(Date.now() > exp * 1000 + 50 ? true : undefined), 10_000, 'the token to expire');
      const change = await api.client.call('POST /runs/{runId}:cancel', `/runs/${randomUUID()}:cancel`, {
        headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'sec-fetch-site': 'same-origin', origin: PUBLIC },
      });
      expect([change.status, (change.body as Problem).code]).toEqual([401, 'session_invalid']);
      const read = await api.client.call('GET /sessions/current', '/sessions/current', { headers: { cookie: s.cookie } });
      expect(read.status).toBe(401);
    });
  });

  describe('the CSRF origin check uses the configured origins, never X-Forwarded-*', () => {
    const cancel = (headers: Record<string, string>) =>
      api.client.call('POST /runs/{runId}:cancel', `/runs/${randomUUID()}:cancel`, { headers });

    it('refuses a foreign Origin dressed up with X-Forwarded-Host/-Proto', async () => {
      const s = await session(testToken(key, 'ws-life'));
      const res = await cancel({
        cookie: s.cookie,
        'x-csrf-token': s.csrf,
        origin: 'https://evil.example',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      });
      expect([res.status, (res.body as Problem).code]).toEqual([403, 'csrf_failed']);
    });

    it('lets a change through from the public origin, and from a CORS_ORIGINS (same-site) page', async () => {
      const s = await session(testToken(key, 'ws-life'));
      // Past the CSRF check, a run that does not exist is 404: the change was let through.
      const own = await cancel({ cookie: s.cookie, 'x-csrf-token': s.csrf, origin: PUBLIC, 'sec-fetch-site': 'same-origin' });
      expect([own.status, (own.body as Problem).code]).toEqual([404, 'run_not_found']);
      const sibling = await cancel({ cookie: s.cookie, 'x-csrf-token': s.csrf, origin: SIBLING, 'sec-fetch-site': 'same-site' });
      expect([sibling.status, (sibling.body as Problem).code]).toEqual([404, 'run_not_found']);
      const stranger = await cancel({
        cookie: s.cookie,
        'x-csrf-token': s.csrf,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expect([stranger.status, (stranger.body as Problem).code]).toEqual([403, 'csrf_failed']);
    });
  });

  describe('a non-JWT bearer value', () => {
    it('gets the same answer whether or not it is a stored provider key; the lookup comes after, for the operator', async () => {
      const stored = randomBytes(24).toString('hex');
      const stranger = randomBytes(24).toString('hex');
      const fingerprint = api.deps.module.fingerprints.fingerprint(stored);
      expect(fingerprint).not.toBeNull();
      await api.deps.module.fingerprints.add(fingerprint as string);
      const before = (await storedKeysAsBearer.get()).values[0]?.value ?? 0;
      const answers = [];
      for (const value of [stored, stranger]) {
        const res = await api.client.call('GET /workspaces/current', '/workspaces/current', {
          headers: { authorization: `Bearer ${value}` },
        });
        answers.push({
          status: res.status,
          code: (res.body as Problem).code,
          title: (res.body as Problem).title,
          auth: res.headers.get('www-authenticate'),
        });
        expect(res.text).not.toContain(value);
      }
      expect(answers[0]).toEqual(answers[1]);
      expect(answers[0]).toMatchObject({ status: 401, code: 'token_malformed' });
      // Afterwards the operator is told about the stored one only (counted; the log line names the request).
      await eventually(
        async () => ((await storedKeysAsBearer.get()).values[0]?.value ?? 0) === before + 1 || undefined,
        10_000,
        'the stored key to be counted',
      );

      // The order, as Redis sees it: no lookup until the answer is gone (the response closes).
      const monitor = await monitorRedis(env.redisUrl);
      const seen = monitor.seen;
      try {
        const res = new EventEmitter();
        const req = { header: (name: string) => (name === 'authorization' ? `Bearer ${stored}` : undefined), res } as unknown as Request;
        await expect(api.deps.module.authenticator.authenticate(req)).rejects.toMatchObject({ code: 'token_malformed' });
        // A marker through Redis after the answer: everything sent before it is in the monitor before it.
        const marker = `marker-${randomUUID()}`;
        const markerClient = await connectRedis(env.redisUrl, () => undefined);
        await markerClient.echo(marker);
        markerClient.disconnect();
        await eventually(
          () => Promise.resolve(seen.some((line) => line.includes(marker)) || undefined),
          10_000,
          'the marker in the monitor',
        );
        const lookup = (line: string): boolean => line.toLowerCase().startsWith('sismember') && line.includes(fingerprint as string);
        expect(seen.filter(lookup)).toEqual([]);
        res.emit('close');
        await eventually(() => Promise.resolve(seen.some(lookup) || undefined), 10_000, 'the lookup after the answer');
      } finally {
        monitor.close();
      }
    });
  });
});
