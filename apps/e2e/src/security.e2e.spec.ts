import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mintAccessToken } from '@wrs/auth';
import { contractOperations } from '@wrs/contracts';
import { openDatabase } from '@wrs/persistence';
import { accessClaims, apiFetch, eventually, readSse, signJwt, testToken } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const DIST = join(__dirname, '..', '..', '..', 'dist');
const run = promisify(execFile);

type Problem = { code: string; requestId: string };

describe('authentication, workspaces, provider credentials and browser sessions', () => {
  let f: StackFixture;
  let token: string;
  let foreign: string;
  const plantedProviderKey = `sk-ant-api03-${randomUUID().replace(/-/g, '')}PLANTED`;

  beforeAll(async () => {
    f = await startStack(['ws-sec', 'ws-other']);
    token = f.token('ws-sec');
    foreign = f.token('ws-other');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const getWorkspace = (headers: Record<string, string>) => f.client.call('GET /workspaces/current', '/workspaces/current', { headers });
  const codeOf = (res: { body: unknown }): string => (res.body as Problem).code;
  const createRun = async (t = token): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token: t,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };

  describe('tokens', () => {
    it('tells missing, malformed, expired, bad-signature and revoked tokens apart by code, echoing none', async () => {
      const stranger = generateKeyPairSync('ed25519');
      const expired = await mintAccessToken(f.signingKey, {
        issuer: 'workload-run-service-dev',
        audience: 'workload-run-service',
        workspaceId: 'ws-sec',
        subject: 'x',
        ttlSeconds: 60,
        now: Date.now() - 10 * 60_000,
      });
      const badSignature = await mintAccessToken(
        { kid: f.signingKey.kid, privateKey: stranger.privateKey },
        {
          issuer: 'workload-run-service-dev',
          audience: 'workload-run-service',
          workspaceId: 'ws-sec',
          subject: 'x',
          ttlSeconds: 60,
        },
      );
      const cases: [Record<string, string>, string][] = [
        [{}, 'token_missing'],
        [{ authorization: 'Bearer not-a-jwt' }, 'token_malformed'],
        [{ authorization: 'Basic dXNlcjpwYXNz' }, 'token_malformed'],
        [{ authorization: `Bearer ${expired}` }, 'token_expired'],
        [{ authorization: `Bearer ${badSignature}` }, 'token_invalid_signature'],
      ];
      for (const [headers, code] of cases) {
        const res = await getWorkspace(headers);
        expect([res.status, codeOf(res)]).toEqual([401, code]);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        for (const value of Object.values(headers)) {
          expect(res.text).not.toContain(value.replace(/^Bearer /, ''));
        }
      }
    });

    it('refuses alg none and HS256 tokens', async () => {
      const claims = accessClaims('ws-sec');
      const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.x`;
      expect(codeOf(await getWorkspace({ authorization: `Bearer ${none}` }))).toBe('token_invalid_signature');
      const hs = signJwt({ alg: 'HS256', typ: 'at+jwt', kid: f.signingKey.kid }, claims, f.signingKey.privateKey);
      expect(codeOf(await getWorkspace({ authorization: `Bearer ${hs}` }))).toBe('token_invalid_signature');
    });

    it('revokes a token everywhere with the admin command', async () => {
      const doomed = testToken(f.signingKey, 'ws-sec');
      expect((await getWorkspace({ authorization: `Bearer ${doomed}` })).status).toBe(200);
      const jti = (JSON.parse(Buffer.from(doomed.split('.')[1]!, 'base64url').toString()) as { jti: string }).jti;
      await run(process.execPath, [join(DIST, 'scripts/src/revoke-token.js'), '--jti', jti], {
        env: { PATH: process.env['PATH'] ?? '', NATS_URL: f.env.natsUrl, NAMESPACE: f.env.namespace },
      });
      await eventually(
        async () => {
          const res = await getWorkspace({ authorization: `Bearer ${doomed}` });
          return res.status === 401 && codeOf(res) === 'token_revoked' ? true : undefined;
        },
        5000,
        'the revocation to reach the api',
      );
      const stream = await readSse(`${f.stack.baseUrl}/runs/${randomUUID()}/events`, { authorization: `Bearer ${doomed}` });
      expect(JSON.parse(stream.text)).toMatchObject({ code: 'token_revoked' });
      expect((await getWorkspace({ authorization: `Bearer ${token}` })).status).toBe(200);
    });

    it('refuses a credential in the query string before anything else', async () => {
      for (const name of ['access_token', 'token', 'api_key', 'apikey']) {
        const res = await f.client.call('GET /workspaces/current', `/workspaces/current?${name}=${encodeURIComponent(token)}`);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'credential_in_url' });
      }
      const events = await f.client.call('GET /runs/{runId}/events', `/runs/${randomUUID()}/events?access_token=x`);
      expect(events.status).toBe(400);
    });
  });

  describe('provider keys are never tokens', () => {
    it.each([
      'sk-ant-api03-abcdefghijklmnop',
      'sk-proj-abcdefghijklmnopqrstu',
      'AKIAIOSFODNN7EXAMPLE',
      'rk_live_abcdef123',
      'ghp_abcdefghijklmnopqrstuvwxyz0123',
    ])('refuses %s as a bearer token with its own code', async (key) => {
      const res = await getWorkspace({ authorization: `Bearer ${key}` });
      expect([res.status, codeOf(res)]).toEqual([401, 'provider_key_not_token']);
      expect(res.text).not.toContain(key);
    });

    it('stores a key sealed, shows only fingerprint and last four, and refuses it as a token', async () => {
      const secret = `mycloud-${randomUUID()}`;
      const created = await f.client.call('POST /provider-credentials', '/provider-credentials', {
        token,
        body: { provider: 'simulator', region: 'local-1', secret },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ provider: 'simulator', region: 'local-1', lastFour: secret.slice(-4) });
      expect(created.text).not.toContain(secret.slice(0, -4));
      const id = (created.body as { id: string }).id;

      const db = await openDatabase(f.env.database);
      const rows: { row: string }[] = await db.query('SELECT row_to_json(c)::text AS row FROM provider_credentials c WHERE id = $1', [id]);
      await db.destroy();
      expect(rows[0]?.row).toBeDefined();
      expect(rows[0]?.row).not.toContain(secret.slice(0, -4));

      // Refused by its shape only: a stored key of no known provider's shape gets what any value of its
      // shape gets (token_malformed), so the answer tells nobody whether a workspace stores it.
      const asToken = await getWorkspace({ authorization: `Bearer ${secret}` });
      const stranger = await getWorkspace({ authorization: `Bearer mycloud-${randomUUID()}` });
      expect([asToken.status, codeOf(asToken)]).toEqual([401, 'token_malformed']);
      expect([stranger.status, codeOf(stranger), stranger.headers.get('www-authenticate')]).toEqual([
        asToken.status,
        codeOf(asToken),
        asToken.headers.get('www-authenticate'),
      ]);

      const list = await f.client.call('GET /provider-credentials', '/provider-credentials', { token });
      expect((list.body as { items: { id: string }[] }).items.map((c) => c.id)).toContain(id);
      expect(list.text).not.toContain(secret.slice(0, -4));
      const foreignList = await f.client.call('GET /provider-credentials', '/provider-credentials', { token: foreign });
      expect((foreignList.body as { items: unknown[] }).items).toEqual([]);

      expect((await f.client.call('DELETE /provider-credentials/{credentialId}', `/provider-credentials/${id}`, { token })).status).toBe(
        204,
      );
      const again = await f.client.call('DELETE /provider-credentials/{credentialId}', `/provider-credentials/${id}`, { token });
      expect([again.status, codeOf(again)]).toEqual([404, 'provider_credential_not_found']);
      expect(codeOf(await getWorkspace({ authorization: `Bearer ${secret}` }))).toBe('token_malformed');
    });

    it('refuses a credential for a provider or region that is not offered', async () => {
      const res = await f.client.call('POST /provider-credentials', '/provider-credentials', {
        token,
        body: { provider: 'aws', secret: 'abcdefgh12345678' },
      });
      expect([res.status, codeOf(res)]).toEqual([400, 'unsupported_provider']);
    });
  });

  describe('workspaces', () => {
    it('a token bound to several workspaces must name one, and only one of its own', async () => {
      const multi = await mintAccessToken(f.signingKey, {
        issuer: 'workload-run-service-dev',
        audience: 'workload-run-service',
        workspaceId: ['ws-sec', 'ws-other'],
        subject: 'svc',
        ttlSeconds: 300,
      });
      const bare = await getWorkspace({ authorization: `Bearer ${multi}` });
      expect([bare.status, codeOf(bare)]).toEqual([400, 'workspace_header_required']);
      const named = await getWorkspace({ authorization: `Bearer ${multi}`, 'x-service-workspace-id': 'ws-other' });
      expect(named.body).toMatchObject({ id: 'ws-other' });
      const elsewhere = await getWorkspace({ authorization: `Bearer ${multi}`, 'x-service-workspace-id': 'ws-third' });
      expect([elsewhere.status, codeOf(elsewhere)]).toEqual([403, 'workspace_mismatch']);
    });

    it('answers a foreign run and a missing one in the same time (no timing oracle a test can see)', async () => {
      const runId = await createRun();
      const sample = async (id: string): Promise<number> => {
        const started = process.hrtime.bigint();
        await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: foreign });
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      const foreignTimes: number[] = [];
      const missingTimes: number[] = [];
      // Interleaved, so machine noise hits both alike.
      for (let i = 0; i < 40; i++) {
        foreignTimes.push(await sample(runId));
        missingTimes.push(await sample(randomUUID()));
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const ratio = median(foreignTimes) / median(missingTimes);
      // Both do the same lookups (projection by id and workspace, then the create command); a real
      // difference would be an extra query, several times the noise.
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    });

    it("hides another workspace's resources on every contract route that takes an id, exactly like missing ones", async () => {
      const runId = await createRun();
      const credential = await f.client.call('POST /provider-credentials', '/provider-credentials', {
        token,
        body: { provider: 'simulator', secret: `k-${randomUUID()}` },
      });
      const ids: Record<string, string> = { runId, credentialId: (credential.body as { id: string }).id };
      const withId = contractOperations().filter((op) => /\{\w+\}/.test(op.template));
      expect(withId.length).toBeGreaterThanOrEqual(4);
      for (const op of withId) {
        const fill = (template: string, value: (name: string) => string): string =>
          template.replace(/\{(\w+)\}/g, (_, n: string) => value(n));
        const call = async (path: string) => {
          if (op.template.endsWith('/events')) {
            const r = await readSse(`${f.stack.baseUrl}${path}`, { authorization: `Bearer ${foreign}` });
            return { status: r.status, body: JSON.parse(r.text) as Problem };
          }
          const r = await f.client.call(`${op.method} ${op.template}`, path, { token: foreign });
          return { status: r.status, body: r.body as Problem };
        };
        const theirs = await call(fill(op.template, (n) => ids[n] ?? randomUUID()));
        const missing = await call(fill(op.template, () => randomUUID()));
        expect([op.template, theirs.status]).toEqual([op.template, 404]);
        expect({ ...theirs.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
      }
      const stillThere = await f.client.call('GET /provider-credentials', '/provider-credentials', { token });
      expect((stillThere.body as { items: { id: string }[] }).items.map((c) => c.id)).toContain(ids['credentialId']);
    });
  });

  describe('browser sessions', () => {
    const origin = (): string => new URL(f.stack.baseUrl).origin;
    async function signIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
      const res = await f.client.call('POST /sessions', '/sessions', { token });
      expect(res.status).toBe(201);
      const setCookie = res.headers.get('set-cookie') ?? '';
      return { cookie: setCookie.split(';')[0] ?? '', csrf: (res.body as { csrfToken: string }).csrfToken, setCookie };
    }

    it('sets an HttpOnly, Secure, SameSite=Strict __Host- cookie holding an opaque id', async () => {
      const { setCookie, cookie } = await signIn();
      expect(setCookie).toMatch(/^__Host-wrs_session=[A-Za-z0-9_-]{43};/);
      for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/']) {
        expect(setCookie).toContain(attribute);
      }
      expect(cookie).not.toContain(token.split('.')[1]!.slice(0, 20));
    });

    it('reads with the cookie alone, streams events with it, and changes nothing without the CSRF token', async () => {
      const { cookie, csrf } = await signIn();
      const runId = await createRun();
      const read = await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { headers: { cookie } });
      expect(read.status).toBe(200);
      const stream = await readSse(`${f.stack.baseUrl}/runs/${runId}/events`, { cookie }, { until: (e) => e.length > 0 });
      expect(stream.events[0]?.event).toBe('run.created');

      const noCsrf = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, { headers: { cookie } });
      expect([noCsrf.status, codeOf(noCsrf)]).toEqual([403, 'csrf_failed']);
      const wrongCsrf = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, {
        headers: { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}x` },
      });
      expect(codeOf(wrongCsrf)).toBe('csrf_failed');
      const forged = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, {
        headers: { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(codeOf(forged)).toBe('csrf_failed');
      expect((await f.client.call('GET /runs/{runId}', `/runs/${runId}`, { headers: { cookie } })).body).toMatchObject({
        state: expect.not.stringMatching(/cancel/),
      });

      const sameOrigin = await f.client.call('POST /runs/{runId}:cancel', `/runs/${runId}:cancel`, {
        headers: { cookie, 'x-csrf-token': csrf, origin: origin(), 'sec-fetch-site': 'same-origin' },
      });
      expect(sameOrigin.status).toBe(202);
    });

    it('judges a request carrying a cookie and a bearer token by the token alone', async () => {
      const { cookie } = await signIn();
      const res = await getWorkspace({ cookie, authorization: `Bearer ${foreign}` });
      expect(res.body).toMatchObject({ id: 'ws-other' });
      const created = await f.client.call('POST /runs', '/runs', {
        token: foreign,
        headers: { cookie, 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
      });
      expect(created.status).toBe(201);
    });

    it('signs out: the session is gone and its cookie cleared', async () => {
      const { cookie, csrf } = await signIn();
      const current = await f.client.call('GET /sessions/current', '/sessions/current', { headers: { cookie } });
      expect(current.body).toMatchObject({ workspaceId: 'ws-sec', csrfToken: csrf });
      const noCsrf = await f.client.call('DELETE /sessions/current', '/sessions/current', { headers: { cookie } });
      expect(codeOf(noCsrf)).toBe('csrf_failed');
      const out = await f.client.call('DELETE /sessions/current', '/sessions/current', { headers: { cookie, 'x-csrf-token': csrf } });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
      const after = await getWorkspace({ cookie });
      expect([after.status, codeOf(after)]).toEqual([401, 'session_invalid']);
    });
  });

  describe('headers', () => {
    it("sends the headers an API answer needs and no X-Powered-By, on the api and the relay; a page's headers only on the console", async () => {
      for (const url of [`${f.stack.baseUrl}/version`, `${f.stack.baseUrl}/runs/${randomUUID()}/events`]) {
        const res = await apiFetch(url);
        expect(res.headers.get('x-powered-by')).toBeNull();
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
        expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
        for (const pageOnly of [
          'content-security-policy',
          'x-frame-options',
          'referrer-policy',
          'cross-origin-opener-policy',
          'origin-agent-cluster',
        ]) {
          expect([url, pageOnly, res.headers.get(pageOnly)]).toEqual([url, pageOnly, null]);
        }
      }
      // The console's page is not an operation of the contract: raw fetch.
      const page = await fetch(`${new URL(f.stack.baseUrl).origin}/console/`);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      await page.text();
    });

    it('answers CORS only for configured origins', async () => {
      const res = await apiFetch(`${f.stack.baseUrl}/version`, { headers: { origin: 'https://evil.example' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('never writes a token or a provider key into any log line of any service', async () => {
    // Use both in every way a careless service might log them.
    await getWorkspace({ authorization: `Bearer ${plantedProviderKey}` });
    await getWorkspace({ authorization: `Bearer ${token}x` });
    await apiFetch(`${f.stack.baseUrl}/workspaces/current?access_token=${token}`);
    await f.client.call('POST /provider-credentials', '/provider-credentials', {
      token,
      body: { provider: 'simulator', secret: plantedProviderKey },
    });
    await f.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body: '{"broken' });
    expect(f.logs.length).toBeGreaterThan(0);
    const leaks = f.logs.filter((line) => line.includes(plantedProviderKey) || line.includes(token.split('.')[2]!));
    expect(leaks).toEqual([]);
    expect(f.logs.filter((line) => line.includes('unexpected error'))).toEqual([]);
  });
});
