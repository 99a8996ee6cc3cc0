import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from './in-process-api.testing';

/** Caching and failed authentication at the api, over a real socket with real Redis. */
describe('authenticated answers and failed authentication', () => {
  const { key, publicKeyFile } = testSigningKey();
  const good = testToken(key, 'ws-auth');
  const other = testSigningKey();
  const forged = testToken(other.key, 'ws-auth'); // well formed, signed by a key the api does not trust
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { AUTH_FAILURES_PER_MINUTE: '5' });
    await api.deps.module.workspaces.ensure('ws-auth', 'Auth');
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  it('an authenticated answer carries Cache-Control: no-store, a public one does not need to', async () => {
    const res = await api.client.call('GET /workspaces/current', '/workspaces/current', { token: good });
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store']);
  });

  it('after 5 failed credentials from one address the next failing one is a 429; a good credential from there still passes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await api.client.call('GET /workspaces/current', '/workspaces/current', { token: forged })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const throttled = await api.client.call('GET /workspaces/current', '/workspaces/current', { token: forged });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // The NAT case: someone else behind the same address, with a good token, is not held back.
    expect((await api.client.call('GET /workspaces/current', '/workspaces/current', { token: good })).status).toBe(200);
    // A missing credential guesses nothing: it is answered 401, not counted.
    expect((await api.client.call('GET /workspaces/current', '/workspaces/current')).status).toBe(401);
  });

  it('the client address comes from X-Forwarded-For only through the trusted hop (loopback by default)', async () => {
    // This test's socket is loopback, the default trusted hop: the forwarded address is its own bucket.
    const res = await api.client.call('GET /workspaces/current', '/workspaces/current', {
      token: forged,
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(res.status).toBe(401);
  });
});
