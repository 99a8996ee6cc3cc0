import type { ProviderOffer } from '@wrs/domain';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { randomUUID } from 'node:crypto';
import { startApi, type InProcessApi } from '../in-process-api.testing';

/**
 * GET /workspaces/current publishes the placements a run may request, over a real socket (every answer
 * checked against the contract by the client), and a create request accepts exactly those.
 */
describe('the placements a workspace may use', () => {
  const offers: ProviderOffer[] = [
    { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 1 },
    { provider: 'podman', kind: 'container', regions: ['here'], priority: 0, cost: 2 },
    { provider: 'by-name', kind: 'simulator', regions: ['named-1'], priority: 2, auto: false },
  ];
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-placements');
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, {}, offers);
    await api.deps.module.workspaces.ensure('ws-placements', 'Placements');
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  it('lists every configured provider with its kind and regions, in configured order (not priority, cost or capacity)', async () => {
    const res = await api.client.call('GET /workspaces/current', '/workspaces/current', { token });
    expect(res.status).toBe(200);
    expect((res.body as { placements: unknown }).placements).toEqual([
      { provider: 'simulator', kind: 'simulator', regions: ['local-1', 'local-2'], auto: true },
      { provider: 'podman', kind: 'container', regions: ['here'], auto: true },
      { provider: 'by-name', kind: 'simulator', regions: ['named-1'], auto: false },
    ]);
  });

  it('a create request naming a listed pair is accepted; a region of another provider is refused', async () => {
    const create = (provider: string, region: string) =>
      api.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox' }, provider, region },
      });
    expect((await create('podman', 'here')).status).toBe(201);
    expect((await create('auto', 'local-2')).status).toBe(201);
    const refused = await create('podman', 'local-1');
    expect([refused.status, (refused.body as { code: string }).code]).toEqual([400, 'unsupported_region']);
  });

  it("auto with a region only an offer marked auto: false has is refused at once, naming auto's regions; named, it is accepted", async () => {
    const create = (provider: string, region: string) =>
      api.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox' }, provider, region },
      });
    const refused = await create('auto', 'named-1');
    expect([refused.status, refused.body]).toEqual([
      400,
      expect.objectContaining({
        code: 'unsupported_region',
        params: { region: 'named-1', allowed: ['auto', 'local-1', 'local-2', 'here'] },
      }),
    ]);
    expect((await create('by-name', 'named-1')).status).toBe(201);
  });
});
