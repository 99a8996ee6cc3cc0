import { randomUUID } from 'node:crypto';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

/**
 * A `Prefer: wait` under way when the api begins to stop (a rolling deploy): it answers with the run as
 * it is, instead of holding its connection until the close grace (20 s) cuts it. No run-worker here, so
 * the run never ends by itself; the answer is checked against the contract by the client.
 */
describe('Prefer: wait when the api stops', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-wait-stop');
  let env: IsolatedEnvironment;
  let api: InProcessApi | undefined;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-wait-stop', 'Wait stop');
  });

  afterAll(async () => {
    await api?.close();
    await env.cleanup();
  });

  it('answers at once with the run as it is, and says the preference was applied', async () => {
    const running = api!;
    const created = await running.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    const runId = (created.body as { id: string }).id;
    // 30 s, the most: longer than the close grace, so only an answer at the stop can come back.
    const waiting = running.client.call('GET /runs/{runId}', `/runs/${runId}`, { token, headers: { prefer: 'wait=30' } });
    await eventually(() => Promise.resolve(running.deps.module.endings.waiting === 1 ? true : undefined), 10_000, 'the GET to be waiting');
    const stopping = running.close();
    api = undefined;
    const answer = await waiting;
    await stopping;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('preference-applied')).toBe('wait=30');
    expect(answer.body).toMatchObject({ id: runId, state: 'queued' });
  });
});
