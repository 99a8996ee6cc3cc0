import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevCredentialKeys, openSecret, readPrivateKeks, type SealedSecret } from '@wrs/credentials';
import { migrate, openDatabase } from '@wrs/persistence';
import { isolatedEnvironment, settlesWithin, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { startApi, type InProcessApi } from '../in-process-api.testing';

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  secret?: string;
  secretRotatedAt: string;
}

/**
 * `/webhooks` over a real socket, every answer held to the contract: the secret shown on create and
 * rotation only, sealed at rest so that only the worker's private key opens it, and another
 * workspace's endpoint a 404 on every route that takes an id.
 */
describe('webhooks API', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-hooks');
  const otherToken = testToken(key, 'ws-hooks-other');
  const keyDir = mkdtempSync(join(tmpdir(), 'wrs-webhook-keks-'));
  const keks = ensureDevCredentialKeys(keyDir);
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let db: DataSource;

  const call = (operation: string, path: string, options: { body?: unknown; as?: string } = {}) =>
    api.client.call(operation, path, { token: options.as ?? token, ...(options.body !== undefined ? { body: options.body } : {}) });
  const create = async (body: unknown, as = token) => call('POST /webhooks', '/webhooks', { body, as });

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { CREDENTIALS_KEK_PUBLIC_KEYS: `dev:${keks.publicFile}` });
    await api.deps.module.workspaces.ensure('ws-hooks', 'Webhooks');
    await api.deps.module.workspaces.ensure('ws-hooks-other', 'Webhooks, another workspace');
    db = await openDatabase(env.database);
  });
  afterAll(async () => {
    await db?.destroy();
    await api?.close();
    await env?.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('creates an endpoint, showing its secret once; the secret is stored sealed for the worker', async () => {
    const res = await create({ url: 'https://hooks.example.com/wrs', events: ['started', 'completed'] });
    expect([res.status, res.headers.get('cache-control')]).toEqual([201, 'no-store']);
    const hook = res.body as WebhookBody;
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [row] = (await db.query('SELECT sealed FROM webhooks WHERE id = $1', [hook.id])) as { sealed: SealedSecret }[];
    expect(JSON.stringify(row!.sealed)).not.toContain(hook.secret!.slice(6));
    const privateKeks = readPrivateKeks('CREDENTIALS_KEK_PRIVATE_KEYS', `dev:${keks.privateFile}`);
    expect(openSecret(row!.sealed, privateKeks, `webhook/ws-hooks/${hook.id}`)).toBe(hook.secret);
    const read = await call('GET /webhooks/{webhookId}', `/webhooks/${hook.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: hook.id,
      url: hook.url,
      events: ['started', 'completed'],
      createdAt: expect.any(String),
      secretRotatedAt: hook.secretRotatedAt,
    });
  });

  it('asks for completed events when none are named, and lists endpoints without secrets', async () => {
    const res = await create({ url: 'https://hooks.example.com/default' });
    expect(res.status).toBe(201);
    expect((res.body as WebhookBody).events).toEqual(['completed']);
    const list = await call('GET /webhooks', '/webhooks');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('whsec_');
    expect((list.body as { items: WebhookBody[] }).items.map((w) => w.url)).toContain('https://hooks.example.com/default');
    const other = await call('GET /webhooks', '/webhooks', { as: otherToken });
    expect((other.body as { items: unknown[] }).items).toEqual([]);
  });

  it.each([
    ['an http URL', { url: 'http://hooks.example.com/' }],
    ['a URL with credentials', { url: 'https://user:pw@hooks.example.com/' }],
    ['a URL with a fragment', { url: 'https://hooks.example.com/#x' }],
    ['an unknown event kind', { url: 'https://hooks.example.com/', events: ['exploded'] }],
    ['no event kind', { url: 'https://hooks.example.com/', events: [] }],
    ['an unknown field', { url: 'https://hooks.example.com/', secret: 'mine' }],
  ])('refuses %s with validation_failed', async (_what, body) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed' });
  });

  it('rotates the secret: a new one, shown once, and the endpoint otherwise unchanged', async () => {
    const hook = (await create({ url: 'https://hooks.example.com/rotate' })).body as WebhookBody;
    const res = await call('POST /webhooks/{webhookId}:rotate-secret', `/webhooks/${hook.id}:rotate-secret`);
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'no-store']);
    const rotated = res.body as WebhookBody;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated).toMatchObject({ id: hook.id, url: hook.url, events: hook.events });
    expect(Date.parse(rotated.secretRotatedAt)).toBeGreaterThanOrEqual(Date.parse(hook.secretRotatedAt));
  });

  it('shows deliveries with their attempts, status, answer and next attempt', async () => {
    const hook = (await create({ url: 'https://hooks.example.com/deliveries' })).body as WebhookBody;
    const empty = await call('GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
    // As the worker records a failed first attempt.
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, attempts, response_status, error, last_attempt_at, next_attempt_at)
       VALUES ('msg_test', $1, 'ws-hooks', 'run-1', 7, 7, 'run.completed', '{}', 1, 500, 'status', now(), now() + interval '10 seconds')`,
      [hook.id],
    );
    const res = await call('GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`);
    expect(res.status).toBe(200);
    expect((res.body as { items: unknown[] }).items).toEqual([
      expect.objectContaining({
        id: 'msg_test',
        runId: 'run-1',
        type: 'run.completed',
        status: 'pending',
        attempts: 1,
        responseStatus: 500,
        error: 'status',
        nextAttemptAt: expect.any(String),
      }),
    ]);
  });

  it("answers 404 webhook_not_found for another workspace's endpoint on every route with an id, and for a malformed id", async () => {
    const hook = (await create({ url: 'https://hooks.example.com/mine' })).body as WebhookBody;
    const routes: [string, string][] = [
      ['GET /webhooks/{webhookId}', `/webhooks/${hook.id}`],
      ['POST /webhooks/{webhookId}:rotate-secret', `/webhooks/${hook.id}:rotate-secret`],
      ['GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`],
      ['DELETE /webhooks/{webhookId}', `/webhooks/${hook.id}`],
      ['GET /webhooks/{webhookId}', '/webhooks/not-a-uuid'],
    ];
    for (const [operation, path] of routes) {
      const res = await call(operation, path, { as: otherToken });
      expect([operation, res.status, (res.body as { code: string }).code]).toEqual([operation, 404, 'webhook_not_found']);
    }
    expect((await call('GET /webhooks/{webhookId}', `/webhooks/${hook.id}`)).status).toBe(200);
  });

  it('refuses a 17th endpoint with 400 webhook_limit_reached, and takes one again after a delete', async () => {
    const limitToken = testToken(key, 'ws-hooks-limit');
    await api.deps.module.workspaces.ensure('ws-hooks-limit', 'Webhooks, at the limit');
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const res = await create({ url: `https://hooks.example.com/limit/${i}` }, limitToken);
      expect(res.status).toBe(201);
      ids.push((res.body as WebhookBody).id);
    }
    const refused = await create({ url: 'https://hooks.example.com/limit/16' }, limitToken);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'webhook_limit_reached', params: { limit: 16 } });
    expect((await call('DELETE /webhooks/{webhookId}', `/webhooks/${ids[0]!}`, { as: limitToken })).status).toBe(204);
    expect((await create({ url: 'https://hooks.example.com/limit/16' }, limitToken)).status).toBe(201);
  });

  it('at 15 endpoints, of 8 creates at once exactly one is taken and the others are webhook_limit_reached', async () => {
    const raceToken = testToken(key, 'ws-hooks-race');
    await api.deps.module.workspaces.ensure('ws-hooks-race', 'Webhooks, creates at once');
    for (let i = 0; i < 15; i++) {
      expect((await create({ url: `https://hooks.example.com/race/${i}` }, raceToken)).status).toBe(201);
    }
    // Each insert lingers before its commit, so the creates overlap whatever the machine's speed.
    await db.query(`CREATE FUNCTION linger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$`);
    await db.query(`CREATE TRIGGER linger AFTER INSERT ON webhooks FOR EACH ROW EXECUTE FUNCTION linger()`);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create({ url: `https://hooks.example.com/race/at-once-${i}` }, raceToken)),
    ).finally(() => db.query('DROP TRIGGER linger ON webhooks; DROP FUNCTION linger()'));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    const list = await call('GET /webhooks', '/webhooks', { as: raceToken });
    expect((list.body as { items: unknown[] }).items).toHaveLength(16);
  });

  it('deletes an endpoint at once while a sender holds one of its deliveries, taking the others with it', async () => {
    const hook = (await create({ url: 'https://hooks.example.com/in-flight' })).body as WebhookBody;
    for (const [id, seq] of [
      ['msg_in_flight', 1],
      ['msg_waiting', 2],
    ] as const) {
      await db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, next_attempt_at)
         VALUES ($1, $2, 'ws-hooks', 'run-1', $3, $3, 'run.completed', '{}', now())`,
        [id, hook.id, seq],
      );
    }
    // As a sender does for the whole of an attempt (up to WEBHOOK_TIMEOUT_MS).
    const sender = db.createQueryRunner();
    await sender.connect();
    await sender.startTransaction();
    try {
      await sender.query(`SELECT id FROM webhook_deliveries WHERE id = 'msg_in_flight' FOR UPDATE`);
      const deleted = call('DELETE /webhooks/{webhookId}', `/webhooks/${hook.id}`).then((res) => res.status);
      expect(await settlesWithin(3_000, deleted)).toBe(204);
      expect((await call('GET /webhooks/{webhookId}', `/webhooks/${hook.id}`)).status).toBe(404);
      const left = (await db.query('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [hook.id])) as { id: string }[];
      expect(left.map((r) => r.id)).toEqual(['msg_in_flight']);
      // The worker's retention job removes the one in flight once it is settled (webhook-deletion.int.spec.ts).
    } finally {
      await sender.rollbackTransaction();
      await sender.release();
    }
  });

  it('deletes an endpoint; a second delete is a 404', async () => {
    const hook = (await create({ url: 'https://hooks.example.com/gone' })).body as WebhookBody;
    expect((await call('DELETE /webhooks/{webhookId}', `/webhooks/${hook.id}`)).status).toBe(204);
    expect((await call('DELETE /webhooks/{webhookId}', `/webhooks/${hook.id}`)).status).toBe(404);
    expect((await call('GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`)).status).toBe(404);
  });
});
