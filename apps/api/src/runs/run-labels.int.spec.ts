import { randomUUID } from 'node:crypto';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { startApi, type InProcessApi } from '../in-process-api.testing';

interface RunBody {
  id: string;
  workload: { image: string; labels?: Record<string, string> };
}
interface ListBody {
  items: RunBody[];
  nextCursor: string | null;
}
interface ProblemBody {
  code: string;
  params?: { errors?: { field: string; message: string; refused?: string[]; max?: number; limit?: number }[] };
}

/**
 * Labels over a real socket: created with a run, returned on every read, and a filter of `GET /runs`.
 * Runs are created through the api and their `run.created` event, read back from JetStream, is folded
 * by the real projection, as the worker would. Every answer is held to the contract by the client.
 */
describe('run labels: workload.labels and GET /runs?label=key=value', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-labels');
  const otherToken = testToken(key, 'ws-labels-other');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let db: DataSource;
  const ids: Record<string, string> = {};

  const create = async (labels: unknown, idempotencyKey: string = randomUUID(), as = token) =>
    api.client.call('POST /runs', '/runs', {
      token: as,
      headers: { 'idempotency-key': idempotencyKey },
      body: { workload: { image: 'busybox', labels }, provider: 'auto', region: 'auto' },
    });

  /** Projects the run's events from JetStream into Postgres, as the worker does. */
  async function project(workspaceId: string, runId: string): Promise<void> {
    const { events } = await api.deps.module.events.read(workspaceId, runId);
    const projection = new RunProjection(db);
    let previous = 0;
    for (const { seq, event } of events) {
      await projection.project(runId, seq, event, previous);
      previous = seq;
    }
  }

  async function createProjected(name: string, labels: Record<string, string>, workspaceId = 'ws-labels', as = token): Promise<void> {
    const res = await create(labels, randomUUID(), as);
    expect(res.status).toBe(201);
    ids[name] = (res.body as RunBody).id;
    await project(workspaceId, ids[name]);
  }

  const list = async (query: string) => api.client.call('GET /runs', `/runs${query}`, { token });
  const listed = async (query: string): Promise<string[]> => {
    const res = await list(query);
    expect(res.status).toBe(200);
    return (res.body as ListBody).items.map((r) => r.id);
  };
  const problem = (res: { body: unknown }): ProblemBody => res.body as ProblemBody;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { LIMIT_REQUESTS_PER_MINUTE: '1000000', LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000' });
    await api.deps.module.workspaces.ensure('ws-labels', 'Labels');
    await api.deps.module.workspaces.ensure('ws-labels-other', 'Labels, another workspace');
    db = await openDatabase(env.database);
    // Created in this order, so the list (newest first) shows them reversed.
    await createProjected('mlProd', { team: 'ml', env: 'prod' });
    await createProjected('mlDev', { team: 'ml', env: 'dev' });
    await createProjected('webProd', { team: 'web', env: 'prod' });
    await createProjected('prefixed', { 'example.com/tier': '', team: 'ml', env: 'prod' });
    await createProjected('none', {});
    await createProjected('foreign', { team: 'ml', env: 'prod' }, 'ws-labels-other', otherToken);
  });

  afterAll(async () => {
    await db?.destroy();
    await api?.close();
    await env?.cleanup();
  });

  it('returns the labels on create, on a read before and after projection, and in lists', async () => {
    // Its own team, so the filters below see only the runs made for them.
    const labels = { team: 'readback', 'example.com/owner': 'a.b_c-9', empty: '', constructor: 'x' };
    const created = await create(labels);
    expect(created.status).toBe(201);
    const run = created.body as RunBody;
    expect(run.workload.labels).toEqual(labels);
    const unprojected = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
    expect((unprojected.body as RunBody).workload.labels).toEqual(labels);
    await project('ws-labels', run.id);
    const projected = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
    expect((projected.body as RunBody).workload.labels).toEqual(labels);
    const page = (await list('?label=empty=')).body as ListBody;
    expect(page.items.map((r) => [r.id, r.workload.labels])).toEqual([[run.id, labels]]);
  });

  it("filters by one label: every run of the workspace with it, newest first, no other workspace's", async () => {
    expect(await listed('?label=team=ml')).toEqual([ids['prefixed'], ids['mlDev'], ids['mlProd']]);
    expect(await listed('?label=env=prod')).toEqual([ids['prefixed'], ids['webProd'], ids['mlProd']]);
    expect(await listed('?label=example.com/tier=')).toEqual([ids['prefixed']]);
    expect(await listed('?label=team=nobody')).toEqual([]);
    // A key that is present with another value does not match an empty one.
    expect(await listed('?label=team=')).toEqual([]);
  });

  it('filters by two labels, both of which must match, and pages through the result', async () => {
    expect(await listed('?label=team=ml&label=env=prod')).toEqual([ids['prefixed'], ids['mlProd']]);
    expect(await listed('?label=env=prod&label=team=web')).toEqual([ids['webProd']]);
    expect(await listed('?label=team=ml&label=team=web')).toEqual([]);
    expect(await listed('?label=team=ml&label=team=ml&state=queued')).toEqual([ids['prefixed'], ids['mlDev'], ids['mlProd']]);
    const first = (await list('?label=team=ml&label=env=prod&limit=1')).body as ListBody;
    expect(first.items.map((r) => r.id)).toEqual([ids['prefixed']]);
    expect(await listed(`?label=team=ml&label=env=prod&limit=1&cursor=${first.nextCursor}`)).toEqual([ids['mlProd']]);
  });

  it('finds a run not yet projected by its Idempotency-Key only when its labels match too', async () => {
    const idempotencyKey = randomUUID();
    const created = await create({ team: 'ml' }, idempotencyKey);
    expect(created.status).toBe(201);
    const id = (created.body as RunBody).id;
    expect(await listed(`?idempotencyKey=${idempotencyKey}&label=team=ml`)).toEqual([id]);
    expect(await listed(`?idempotencyKey=${idempotencyKey}&label=team=web`)).toEqual([]);
  });

  it('keeps labels in the idempotency fingerprint: the same key with other labels is a conflict', async () => {
    const idempotencyKey = randomUUID();
    expect((await create({ team: 'ml' }, idempotencyKey)).status).toBe(201);
    const replay = await create({ team: 'ml' }, idempotencyKey);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const changed = await create({ team: 'web' }, idempotencyKey);
    expect(changed.status).toBe(409);
    expect(problem(changed).code).toBe('idempotency_conflict');
  });

  it('refuses labels out of form with a 400 naming workload.labels and the keys refused', async () => {
    const cases: [unknown, string[]][] = [
      [{ '-team': 'ml', ok: 'fine' }, ['"-team"']],
      [{ 'Example.com/team': 'ml' }, ['"Example.com/team"']],
      [{ [`${'a'.repeat(254)}/x`]: 'ml' }, [`"${'a'.repeat(254)}/x"`]],
      [{ ['a'.repeat(64)]: 'ml' }, [`"${'a'.repeat(64)}"`]],
      [{ team: 'ml!' }, ['"team"']],
      [{ team: 'a'.repeat(64) }, ['"team"']],
      [{ team: 3 }, ['"team"']],
      [['team=ml'], []],
      [Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])), []],
    ];
    for (const [labels, refused] of cases) {
      const res = await create(labels);
      expect({ labels, status: res.status, code: problem(res).code }).toEqual({ labels, status: 400, code: 'validation_failed' });
      const errors = problem(res).params?.errors ?? [];
      expect(errors.map((e) => e.field)).toEqual(['workload.labels']);
      for (const key of refused) {
        expect(errors[0]?.message).toContain(key);
      }
    }
    const tooMany = await create(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])));
    expect(problem(tooMany).params?.errors?.[0]?.limit).toBe(16);
  });

  it('refuses a label filter out of form, or more than 16, with a 400 naming the parameter', async () => {
    for (const query of ['label=team', 'label=-team=ml', 'label=team=ml!', 'label==ml', 'label=team=a=b', `label=${'a'.repeat(64)}=x`]) {
      const res = await list(`?${query}`);
      expect({ query, status: res.status, code: problem(res).code }).toEqual({ query, status: 400, code: 'validation_failed' });
      expect(problem(res).params?.errors).toEqual([
        expect.objectContaining({ field: 'label', refused: [decodeURIComponent(query.slice('label='.length))] }),
      ]);
    }
    const many = Array.from({ length: 17 }, (_, i) => `label=k${i}=v`).join('&');
    const res = await list(`?${many}`);
    expect(res.status).toBe(400);
    expect(problem(res).params?.errors).toEqual([expect.objectContaining({ field: 'label', max: 16 })]);
  });
});
