import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { startApi, type InProcessApi } from '../in-process-api.testing';
import { beginKeys } from './idempotency-cache';
import { sha256Hex } from './idempotency-key';

/**
 * The quota of unfinished runs, decided on a count kept in Redis below the limit and by Postgres at
 * it: real api on a socket, real Redis and Postgres. No worker runs: the test projects the runs itself,
 * so what Postgres holds is exactly what the test says.
 */
describe('active-runs quota: a count in Redis, corrected by Postgres', () => {
  const { key, publicKeyFile } = testSigningKey();
  const workspace = 'ws-quota';
  const token = testToken(key, workspace);
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let db: DataSource;
  let redis: Redis;
  let version = new Map<string, number>();

  const create = (idempotencyKey = randomUUID()) =>
    api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': idempotencyKey },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
  const created = async (): Promise<string> => {
    const res = await create();
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  /** What the worker would do: the run in Postgres, unfinished. */
  const project = async (runId: string): Promise<void> => {
    const at = new Date().toISOString();
    await new RunProjection(db).project(runId, 1, {
      type: 'run.created',
      data: {
        runId,
        workspaceId: workspace,
        workload: { image: 'busybox' },
        provider: 'auto',
        region: 'auto',
        idempotencyKey: randomUUID(),
        at,
      },
    });
    version.set(runId, 1);
  };
  const finish = async (runId: string): Promise<void> => {
    const next = (version.get(runId) ?? 1) + 1;
    await new RunProjection(db).project(runId, next, {
      type: 'run.canceled',
      data: { requestedBy: 'test-user', at: new Date().toISOString() },
    });
    version.set(runId, next);
  };
  const keptCount = async (): Promise<string | null> => redis.get(`${env.namespace}:quota:active:${workspace}`);
  const lockHeld = async (idempotencyKey: string): Promise<boolean> =>
    (await redis.exists(beginKeys(env.namespace, workspace, sha256Hex(idempotencyKey))[1])) === 1;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, {
      LIMIT_ACTIVE_RUNS: '2',
      LIMIT_REQUESTS_PER_MINUTE: '100000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '100000',
    });
    await api.deps.module.workspaces.ensure(workspace, 'Quota');
    db = await openDatabase(env.database);
    redis = new Redis(env.redisUrl);
  });

  afterAll(async () => {
    redis?.disconnect();
    await db?.destroy();
    await api?.close();
    await env?.cleanup();
  });

  beforeEach(async () => {
    // Every case starts with no unfinished run and no kept count.
    await db.query(`DELETE FROM runs WHERE workspace_id = $1`, [workspace]);
    await redis.del(`${env.namespace}:quota:active:${workspace}`);
    version = new Map();
  });

  it('counts each new run in Redis (from Postgres at first use), and refuses at the limit as Postgres counts', async () => {
    const firstKey = randomUUID();
    const firstAnswer = await create(firstKey);
    expect(firstAnswer.status).toBe(201);
    const first = (firstAnswer.body as { id: string }).id;
    // The first create found no count: Postgres said 0, and this run made it 1.
    expect(await keptCount()).toBe('1');
    const second = await created();
    expect(await keptCount()).toBe('2');
    await project(first);
    await project(second);
    const thirdKey = randomUUID();
    const third = await create(thirdKey);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'active_runs_quota_exceeded', params: { limit: 2, active: 2 } });
    // Neither the accepted create nor the refused one left its lock: a retry is not told "in flight".
    expect(await lockHeld(firstKey)).toBe(false);
    expect(await lockHeld(thirdKey)).toBe(false);
    // A replay of an accepted run is neither refused nor counted again.
    const replay = await create(firstKey);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await keptCount()).toBe('2');
  });

  it('after a run finishes, at the limit Postgres decides; its count may raise the kept one, never lower it', async () => {
    const runs = [await created(), await created()];
    await Promise.all(runs.map(project));
    expect((await create()).status).toBe(429);
    await finish(runs[0]!);
    // The kept count still says 2 (a finished run does not bring it down); Postgres says 1, and decides.
    expect(await keptCount()).toBe('2');
    await project(await created());
    // Postgres's count never lowers the kept one (it misses runs not projected yet): 2, and this run.
    expect(await keptCount()).toBe('3');
    expect((await create()).status).toBe(429);
  });

  it('a Postgres count that misses runs not yet projected does not lower the kept count, so the overshoot ends there', async () => {
    // Two runs Postgres does not hold yet: at the limit, Postgres counts 0 and lets a third through
    // (soft, as a count per create always was).
    const runs = [await created(), await created()];
    runs.push(await created());
    expect(await keptCount()).toBe('3');
    await Promise.all(runs.map(project));
    // Had the count of 0 replaced the kept one, it would say 1 and this create would pass on Redis alone.
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'active_runs_quota_exceeded', params: { limit: 2 } });
  });

  it('a lost count (Redis flushed, or expired) is taken again from Postgres: the quota holds', async () => {
    const runs = [await created(), await created()];
    await Promise.all(runs.map(project));
    await redis.del(`${env.namespace}:quota:active:${workspace}`);
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ params: { limit: 2, active: 2 } });
    expect(await keptCount()).toBe('2');
  });

  it('below the limit the kept count decides alone (no Postgres count per create)', async () => {
    const runs = [await created(), await created()];
    await Promise.all(runs.map(project));
    // A kept count below what Postgres holds lets a create pass: proof that Postgres was not asked.
    await redis.set(`${env.namespace}:quota:active:${workspace}`, '0', 'PX', 60_000);
    expect((await create()).status).toBe(201);
    expect(await keptCount()).toBe('1');
  });
});
