import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { freePort } from '@wrs/devstack';
import { openDatabase, Workspaces } from '@wrs/persistence';
import { apiFetch, eventually } from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

type Problem = { code: string; params?: Record<string, unknown> };

describe('limits that protect the service and tell clients what to do', () => {
  describe('shared by replicas', () => {
    let f: StackFixture;

    beforeAll(async () => {
      f = await startStack(['ws-rate'], { LIMIT_REQUESTS_PER_MINUTE: '30', LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000' }, { api: 2 });
    });

    afterAll(async () => {
      await f?.stop();
    });

    it('two api processes share one workspace limit; the rest get 429 with the headers', async () => {
      const token = f.token('ws-rate');
      // The gateway alternates between the two api processes.
      const answers = [];
      for (let i = 0; i < 60; i++) {
        answers.push(await f.client.call('GET /workspaces/current', '/workspaces/current', { token }));
      }
      const accepted = answers.filter((r) => r.status === 200);
      const refused = answers.filter((r) => r.status === 429);
      // 30 per minute, plus at most one refill (2 s) during the burst.
      expect(accepted.length).toBeGreaterThanOrEqual(30);
      expect(accepted.length).toBeLessThanOrEqual(31);
      expect(refused.length).toBe(60 - accepted.length);
      expect(accepted[0]?.headers.get('ratelimit-policy')).toBe('"workspace";q=30;w=60, "token";q=1000;w=60');
      expect(accepted[0]?.headers.get('ratelimit')).toMatch(/^"workspace";r=29;t=\d+, "token";r=\d+;t=\d+$/);
      const problem = refused[0]!;
      expect(problem.body).toMatchObject({ code: 'rate_limited', retryable: true });
      expect(Number(problem.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(problem.headers.get('ratelimit')).toMatch(/"workspace";r=0;/);
    });

    it("applies a workspace's own limits and publishes them", async () => {
      const db = await openDatabase(f.env.database);
      await new Workspaces(db).ensure('ws-own', 'Own');
      await new Workspaces(db).setLimits('ws-own', { maxActiveRuns: 2, requestsPerMinute: 1000 });
      await db.destroy();
      const token = f.token('ws-own');
      const workspace = await f.client.call('GET /workspaces/current', '/workspaces/current', { token });
      expect(workspace.body).toMatchObject({
        limits: {
          maxActiveRuns: 2,
          requestsPerMinute: 1000,
          tokenRequestsPerMinute: 1000,
          maxRequestBodyBytes: 65536,
          idempotencyKeyRetentionSeconds: 86400,
        },
      });
      const create = (key = randomUUID()) =>
        f.client.call('POST /runs', '/runs', {
          token,
          headers: { 'idempotency-key': key },
          body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' },
        });
      const firstKey = randomUUID();
      expect((await create(firstKey)).status).toBe(201);
      expect((await create()).status).toBe(201);
      await eventually(async () => {
        const db2 = await openDatabase(f.env.database);
        const rows: { n: string }[] = await db2.query(`SELECT count(*) AS n FROM runs WHERE workspace_id = 'ws-own' AND NOT terminal`);
        await db2.destroy();
        return Number(rows[0]?.n) === 2 ? true : undefined;
      });
      const third = await create();
      expect(third.status).toBe(429);
      expect(third.body).toMatchObject({ code: 'active_runs_quota_exceeded', params: { limit: 2, active: 2 } });
      // A retry of a run already accepted is never refused by the quota.
      const retry = await create(firstKey);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('sizes: just below and just above each bound', () => {
    let f: StackFixture;
    let token: string;

    beforeAll(async () => {
      f = await startStack(['ws-size']);
      token = f.token('ws-size');
    });

    afterAll(async () => {
      await f?.stop();
    });

    const post = (workload: Record<string, unknown>) =>
      f.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload, provider: 'auto', region: 'auto' },
      });
    const limitOf = (res: { body: unknown }, field: string): unknown =>
      ((res.body as Problem).params?.['errors'] as { field: string; limit?: number }[]).find((e) => e.field === field)?.limit;

    it.each([
      ['image length', (n: number) => ({ image: `a${'b'.repeat(n - 1)}` }), 512, 'workload.image'],
      ['args count', (n: number) => ({ image: 'x', args: Array.from({ length: n }, () => 'a') }), 256, 'workload.args'],
      ['command count', (n: number) => ({ image: 'x', command: Array.from({ length: n }, () => 'a') }), 64, 'workload.command'],
      ['arg length', (n: number) => ({ image: 'x', args: ['a'.repeat(n)] }), 4096, 'workload.args'],
      [
        'env entries',
        (n: number) => ({ image: 'x', env: Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, 'v'])) }),
        64,
        'workload.env',
      ],
      ['timeout', (n: number) => ({ image: 'x', timeoutSeconds: n }), 86400, 'workload.timeoutSeconds'],
    ])('%s', async (_name, make, bound, field) => {
      expect((await post(make(bound))).status).toBe(201);
      const over = await post(make(bound + 1));
      expect(over.status).toBe(400);
      expect(limitOf(over, field)).toBe(bound);
    });

    it('request body: 65536 bytes accepted, one more refused with 413 and the limit', async () => {
      const send = (size: number) => {
        const skeleton = JSON.stringify({ workload: { image: 'x', env: { A: '' } }, provider: 'auto', region: 'auto' });
        const body = skeleton.replace('"A":""', `"A":"${'a'.repeat(size - skeleton.length)}"`);
        expect(Buffer.byteLength(body)).toBe(size);
        return f.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body });
      };
      // Below the byte bound the value's own length bound (4096) answers first: 400, not 413.
      expect((await send(65536)).status).toBe(400);
      const over = await send(65537);
      expect(over.status).toBe(413);
      expect(over.body).toMatchObject({ code: 'payload_too_large', params: { limitBytes: 65536 } });
    });

    it('headers: 16 KiB in all refused with a 431 problem', async () => {
      expect((await apiFetch(`${f.stack.baseUrl}/version`, { headers: { 'x-pad': 'p'.repeat(15_000) } })).status).toBe(200);
      const over = await apiFetch(`${f.stack.baseUrl}/version`, { headers: { 'x-pad': 'p'.repeat(17_000) } });
      expect(over.status).toBe(431);
      expect(over.headers.get('content-type')).toBe('application/problem+json');
    });
  });

  describe('when Redis goes away', () => {
    let f: StackFixture;
    let redis: ChildProcess;
    let port: number;

    const startRedis = async (): Promise<void> => {
      redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      await eventually(async () => {
        const ok = await new Promise<boolean>((resolve) => {
          const probe = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
          let out = '';
          probe.stdout.on('data', (c: Buffer) => (out += c.toString()));
          probe.on('exit', () => resolve(out.includes('PONG')));
        });
        return ok ? true : undefined;
      });
    };

    beforeAll(async () => {
      // This suite's own Redis, so stopping it harms nobody else.
      port = await freePort();
      await startRedis();
      f = await startStack(['ws-redis'], { REDIS_URL: `redis://127.0.0.1:${port}`, LIMIT_REQUESTS_PER_MINUTE: '1000' });
    });

    afterAll(async () => {
      await f?.stop();
      redis?.kill('SIGKILL');
    });

    it('rate limiting fails open, sessions refuse with 503, and both recover when Redis returns', async () => {
      const token = f.token('ws-redis');
      const session = await f.client.call('POST /sessions', '/sessions', { token });
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const limited = await f.client.call('GET /workspaces/current', '/workspaces/current', { token });
      expect(limited.headers.get('ratelimit')).toBeTruthy();

      redis.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 300));
      const open = await f.client.call('GET /workspaces/current', '/workspaces/current', { token });
      expect(open.status).toBe(200);
      expect(open.headers.get('ratelimit')).toBeNull();
      const bySession = await f.client.call('GET /workspaces/current', '/workspaces/current', { headers: { cookie } });
      expect(bySession.status).toBe(503);
      expect(bySession.body).toMatchObject({ code: 'dependency_unavailable', retryable: true });
      const created = await f.client.call('POST /runs', '/runs', {
        token,
        headers: { 'idempotency-key': randomUUID() },
        body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
      });
      expect(created.status).toBe(201);

      await startRedis();
      await eventually(
        async () => {
          const r = await f.client.call('GET /workspaces/current', '/workspaces/current', { token });
          return r.headers.get('ratelimit') ? true : undefined;
        },
        15_000,
        'rate limiting to be back',
      );
      // The restarted Redis lost its data: the session is gone, and the answer says so (not a 503).
      const after = await f.client.call('GET /workspaces/current', '/workspaces/current', { headers: { cookie } });
      expect(after.status).toBe(401);
    });
  });
});
