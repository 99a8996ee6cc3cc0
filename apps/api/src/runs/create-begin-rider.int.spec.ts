import { randomUUID } from 'node:crypto';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, monitorRedis, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

/**
 * A create's begin (finished claim, lock, active-runs count) rides in the rate limit's round trip:
 * real api on a socket, real Redis (watched with MONITOR) and Postgres.
 */
describe("a create's Redis work: the rate limit and the begin in one round trip", () => {
  const { key, publicKeyFile } = testSigningKey();
  const workspace = 'ws-rider';
  const token = testToken(key, workspace);
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  const create = (idempotencyKey: string, workload: Record<string, unknown> = { image: 'busybox' }, provider = 'auto') =>
    api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': idempotencyKey },
      body: { workload, provider, region: 'auto' },
    });

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { LIMIT_REQUESTS_PER_MINUTE: '100000', LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000' });
    await api.deps.module.workspaces.ensure(workspace, 'Rider');
    // The first create counts the workspace's unfinished runs in Postgres; the cases below come after.
    expect((await create(randomUUID())).status).toBe(201);
  });

  afterAll(async () => {
    await api?.close();
    await env?.cleanup();
  });

  it('a new run costs two scripts: rate limit with begin, then finish', async () => {
    const monitor = await monitorRedis(env.redisUrl);
    try {
      expect((await create(randomUUID())).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const scripts = monitor.seen.filter((c) => /^eval(sha)? /i.test(c) && c.includes(`${env.namespace}:`));
      expect(scripts).toHaveLength(2);
      expect(scripts[0]).toContain(`${env.namespace}:rate:ws:${workspace}`);
      expect(scripts[0]).toContain(`${env.namespace}:idem:lock:${workspace}:`);
      expect(scripts[1]).toContain(`${env.namespace}:idem:done:${workspace}:`);
    } finally {
      monitor.close();
    }
  });

  it('a body refused after the lock was taken leaves no lock: the corrected retry is created, not told "in flight"', async () => {
    const idempotencyKey = randomUUID();
    const refused = await create(idempotencyKey, { image: '' });
    expect(refused.status).toBe(400);
    const retried = await create(idempotencyKey);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a provider refused after the route took the lock leaves no lock: the corrected retry is created, not told "in flight"', async () => {
    const idempotencyKey = randomUUID();
    const refused = await create(idempotencyKey, { image: 'busybox' }, 'no-such-provider');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'unsupported_provider' });
    const retried = await create(idempotencyKey);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a retry of a finished create is answered from the begin done ahead, as before', async () => {
    const idempotencyKey = randomUUID();
    const first = await create(idempotencyKey);
    const again = await create(idempotencyKey);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
