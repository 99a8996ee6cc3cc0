import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WrsApiError, WrsClient } from '@wrs/client';
import { contractCheckedFetch, eventually, startWebhookReceiver, verifyStandardWebhook, type WebhookReceiver } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/**
 * Webhooks through the whole stack: registered with the api, driven by the worker from the event
 * stream. The worker is killed (SIGKILL, failpoint `worker.webhook-after-send`) after the endpoint
 * answered and before the answer was recorded; the restarted worker sends the delivery again, with
 * the same webhook-id, and records it. The receiver is a real HTTPS server on loopback, which this
 * stack allows (WEBHOOK_ALLOW_PRIVATE_TARGETS) and trusts (NODE_EXTRA_CA_CERTS).
 */
const CLI = join(__dirname, '..', '..', '..', 'dist', 'libs', 'client', 'src', 'cli', 'main.js');

/** The built `wrs` CLI, its token and base URL from the environment only. */
function wrs(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('webhooks across a worker crash (kill -9 mid-delivery)', () => {
  let f: StackFixture;
  let receiver: WebhookReceiver;
  const caDir = mkdtempSync(join(tmpdir(), 'wrs-webhook-ca-'));
  /** Every secret an answer showed: none may appear in any service's log. */
  const secrets: string[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    writeFileSync(join(caDir, 'ca.pem'), receiver.caCertificate);
    f = await startStack(['ws-hooks'], {
      FAILPOINT: 'worker.webhook-after-send',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      WEBHOOK_RETRY_BASE_MS: '100',
    });
  });

  afterAll(async () => {
    await f?.stop();
    await receiver?.close();
    rmSync(caDir, { recursive: true, force: true });
  });

  it('delivers the completed run, signed, after the worker died mid-delivery: the same webhook-id again, recorded once', async () => {
    const token = f.token('ws-hooks');
    const created = await f.client.call('POST /webhooks', '/webhooks', {
      token,
      body: { url: `${receiver.origin}/crash`, events: ['completed'] },
    });
    expect(created.status).toBe(201);
    const hook = created.body as { id: string; secret: string };
    secrets.push(hook.secret);
    const run = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    expect(run.status).toBe(201);
    const runId = (run.body as { id: string }).id;
    await eventually(
      () => Promise.resolve(f.stack.processes.get('run-worker')?.signalCode === 'SIGKILL' ? true : undefined),
      20_000,
      'the worker to die',
    );
    expect(receiver.received).toHaveLength(1);
    const before = await f.client.call('GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`, { token });
    expect((before.body as { items: { status: string; attempts: number }[] }).items).toEqual([
      expect.objectContaining({ status: 'pending', attempts: 0 }),
    ]);
    await f.stack.restart('run-worker', { FAILPOINT: '' });
    const delivered = await eventually(
      async () => {
        const res = await f.client.call('GET /webhooks/{webhookId}/deliveries', `/webhooks/${hook.id}/deliveries`, { token });
        const [delivery] = (res.body as { items: { id: string; status: string }[] }).items;
        return delivery?.status === 'delivered' ? delivery : undefined;
      },
      30_000,
      'the delivery to be recorded',
    );
    expect(delivered).toMatchObject({ runId, type: 'run.completed', attempts: 1, responseStatus: 204 });
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([delivered.id, delivered.id]);
    expect(receiver.received.every((r) => verifyStandardWebhook(hook.secret, r))).toBe(true);
    expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({ type: 'run.completed', data: { runId, state: 'succeeded' } });
  });

  it('the typed client manages endpoints: create, rotate (both secrets sign for a while), deliveries, remove', async () => {
    const checked = contractCheckedFetch(f.stack.baseUrl);
    const client = new WrsClient({ baseUrl: f.stack.baseUrl, token: f.token('ws-hooks'), workspaceId: 'ws-hooks', fetch: checked.fetch });
    const created = await client.webhooks.create({ url: `${receiver.origin}/client`, events: ['started', 'completed'] });
    const rotated = await client.webhooks.rotateSecret(created.value.id);
    secrets.push(created.value.secret, rotated.value.secret);
    expect(rotated.value.secret).not.toBe(created.value.secret);
    expect((await client.webhooks.list()).value.items.map((w) => w.id)).toContain(created.value.id);
    const run = await client.createRun({ workload: { image: 'busybox' }, provider: 'auto', region: 'auto' });
    const deliveries = await eventually(
      async () => {
        const { value } = await client.webhooks.deliveries(created.value.id);
        return value.items.length === 2 && value.items.every((d) => d.status === 'delivered') ? value.items : undefined;
      },
      30_000,
      'both deliveries',
    );
    expect(deliveries.map((d) => [d.type, d.runId])).toEqual([
      ['run.completed', run.value.id],
      ['run.started', run.value.id],
    ]);
    const arrived = receiver.received.filter((r) => r.path === '/client');
    expect(arrived.every((r) => verifyStandardWebhook(rotated.value.secret, r) && verifyStandardWebhook(created.value.secret, r))).toBe(
      true,
    );
    await client.webhooks.remove(created.value.id);
    const gone = await client.webhooks.get(created.value.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(gone).toBeInstanceOf(WrsApiError);
    expect(gone).toMatchObject({ status: 404, code: 'webhook_not_found' });
  });

  it('the wrs CLI registers an endpoint (the secret printed once), shows its deliveries and deletes it', async () => {
    const env = { WRS_BASE_URL: f.stack.baseUrl, WRS_TOKEN: f.token('ws-hooks'), WRS_CONFIG: join(caDir, 'no-config.json'), HOME: caDir };
    const created = await wrs(['--json', 'webhooks', 'create', '--url', `${receiver.origin}/cli`, '--event', 'completed'], env);
    expect(created.code).toBe(0);
    const hook = (JSON.parse(created.stdout) as { webhook: { id: string; secret: string } }).webhook;
    secrets.push(hook.secret);
    expect(hook.secret).toMatch(/^whsec_/);
    const run = await f.client.call('POST /runs', '/runs', {
      token: env.WRS_TOKEN,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    const runId = (run.body as { id: string }).id;
    const listed = await eventually(
      async () => {
        const out = await wrs(['webhooks', 'deliveries', hook.id], env);
        return out.stdout.includes('delivered') ? out : undefined;
      },
      30_000,
      'the delivery in the CLI',
    );
    expect(listed.stdout).toContain(`run.completed  run ${runId}  delivered  attempts 1  204`);
    expect((await wrs(['webhooks', 'list'], env)).stdout).not.toContain('whsec_');
    expect((await wrs(['webhooks', 'delete', hook.id], env)).code).toBe(0);
    const gone = await wrs(['webhooks', 'get', hook.id], env);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('webhook_not_found');
  });

  it("writes no webhook secret into any service's log", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    expect(f.logs.filter((line) => secrets.some((secret) => line.includes(secret.slice('whsec_'.length))))).toEqual([]);
  });
});
