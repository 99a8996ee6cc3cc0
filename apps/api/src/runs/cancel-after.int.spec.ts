import { randomUUID } from 'node:crypto';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { countCreatedRuns, startApi, type InProcessApi } from '../in-process-api.testing';

/** `Cancel-After` at the api: the run's deadline, the key's fingerprint, and a clear 400 (the worker's part is in reconcile-steps). */
describe('POST /runs with Cancel-After', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-deadline');
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-deadline', 'Deadline');
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  const create = (idempotencyKey: string, cancelAfter?: string) =>
    api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': idempotencyKey, ...(cancelAfter !== undefined ? { 'cancel-after': cancelAfter } : {}) },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });

  it('gives the run a deadline from its create, kept on reads and replays', async () => {
    const idempotencyKey = randomUUID();
    const res = await create(idempotencyKey, '1h30m');
    expect(res.status).toBe(201);
    const run = res.body as { id: string; createdAt: string; deadline: string };
    expect(Date.parse(run.deadline) - Date.parse(run.createdAt)).toBe(5400_000);
    const read = await api.client.call('GET /runs/{runId}', `/runs/${run.id}`, { token });
    expect(read.body).toMatchObject({ deadline: run.deadline });
    const replay = await create(idempotencyKey, '1h30m');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(run);
  });

  it("is part of the key's fingerprint: the same key with another or no Cancel-After is a 409", async () => {
    const idempotencyKey = randomUUID();
    expect((await create(idempotencyKey, '60')).status).toBe(201);
    expect(await create(idempotencyKey, '61')).toMatchObject({ status: 409, body: { code: 'idempotency_conflict' } });
    expect(await create(idempotencyKey)).toMatchObject({ status: 409, body: { code: 'idempotency_conflict' } });
  });

  it('without the header a run has no deadline', async () => {
    expect((await create(randomUUID())).body).toMatchObject({ deadline: null });
  });

  it.each(['0', 'soon', '1d', '169h'])('refuses Cancel-After %p with a 400 naming it, and creates nothing', async (value) => {
    const runsBefore = await countCreatedRuns(env, 'ws-deadline');
    const res = await create(randomUUID(), value);
    expect(await countCreatedRuns(env, 'ws-deadline')).toBe(runsBefore);
    expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed', params: { errors: [{ field: 'Cancel-After' }] } } });
  });
});
