import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, StreamNames } from '@wrs/messaging';
import { openDatabase } from '@wrs/persistence';
import { eventually, type ContractClient } from '@wrs/testing';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { startStack, type StackFixture } from './stack-fixture';

type RunBody = { id: string; version: number; state: string };

describe('idempotency and concurrency, against real NATS, Postgres and Redis', () => {
  let f: StackFixture;
  let tokens: Record<'a' | 'b', string>;
  let redis: Redis;
  let db: DataSource;

  const body = (image = 'busybox', env: Record<string, string> = {}): object => ({
    workload: { image, env },
    provider: 'auto',
    region: 'auto',
  });
  const create = (idempotencyKey: string, payload: object, ws: 'a' | 'b' = 'a', client: ContractClient = f.client) =>
    client.call('POST /runs', '/runs', { token: tokens[ws], headers: { 'idempotency-key': idempotencyKey }, body: payload });

  beforeAll(async () => {
    f = await startStack(['ws-a', 'ws-b']);
    tokens = { a: f.token('ws-a'), b: f.token('ws-b') };
    redis = new Redis(f.env.redisUrl);
    db = await openDatabase(f.env.database);
  });

  afterAll(async () => {
    await db?.destroy();
    await deleteKeys(`${f.env.namespace}:*`);
    redis?.disconnect();
    await f?.stop();
  });

  /** How many runs JetStream holds events for, in this stack (optionally one workspace). */
  async function countCreatedRuns(workspaceId = '*'): Promise<number> {
    const nc = await connectNats(f.env.natsUrl, 'count');
    try {
      const info = await (
        await jetstreamManager(nc)
      ).streams.info(new StreamNames(f.env.namespace).eventsStream, {
        subjects_filter: `${f.env.namespace}.evt.${workspaceId}.*`,
      });
      return Object.keys(info.state.subjects ?? {}).length;
    } finally {
      await nc.close();
    }
  }

  async function deleteKeys(pattern: string): Promise<void> {
    const keys = await redis.keys(pattern);
    if (keys.length > 0) {
      await redis.del(...keys);
    }
  }

  async function createdEventsFor(runId: string): Promise<number> {
    const rows: { n: string }[] = await db.query(`SELECT count(*) AS n FROM run_events WHERE run_id = $1 AND type = 'run.created'`, [
      runId,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  it('50 concurrent requests with one key and one body make exactly one run', async () => {
    const k = randomUUID();
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(k, body())));
    const ok = answers.filter((r) => r.status === 201);
    const others = answers.filter((r) => r.status !== 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => (r.body as RunBody).id)).size).toBe(1);
    for (const r of others) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'idempotency_in_flight', retryable: true });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    const runId = (ok[0]!.body as RunBody).id;
    await eventually(async () => ((await createdEventsFor(runId)) === 1 ? true : undefined));
    // The projection's row may be a moment behind the answers: wait for it, then there is one.
    const rows = await eventually(async () => {
      const runs: { n: string }[] = await db.query(`SELECT count(*) AS n FROM runs WHERE body->>'idempotencyKey' = $1`, [k]);
      return Number(runs[0]?.n) >= 1 ? Number(runs[0]?.n) : undefined;
    });
    expect(rows).toBe(1);
  });

  it('replays the first answer byte for byte, with Idempotent-Replayed', async () => {
    const k = randomUUID();
    const first = await create(k, body('busybox', { B: '2', A: '1' }));
    await new Promise((r) => setTimeout(r, 300));
    const again = await create(k, { region: 'auto', provider: 'auto', workload: { env: { A: '1', B: '2' }, image: 'busybox' } });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('still makes one run when Redis lost its keys between the first request and the retry', async () => {
    const k = randomUUID();
    const first = await create(k, body());
    await deleteKeys(`${f.env.namespace}:*`);
    const retry = await create(k, body());
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((retry.body as RunBody).id).toBe((first.body as RunBody).id);
  });

  it('refuses the key with a different body (409, not retryable); other workspaces have their own keys', async () => {
    const k = randomUUID();
    const first = await create(k, body());
    const conflict = await create(k, body('alpine'));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'idempotency_conflict', retryable: false });
    await deleteKeys(`${f.env.namespace}:*`);
    expect((await create(k, body('alpine'))).body).toMatchObject({ code: 'idempotency_conflict' });
    const other = await create(k, body(), 'b');
    expect(other.status).toBe(201);
    expect((other.body as RunBody).id).not.toBe((first.body as RunBody).id);
    expect(await countCreatedRuns('ws-b')).toBeGreaterThanOrEqual(1);
  });

  it('honours If-Match on cancel: a stale version conflicts, the current one is accepted', async () => {
    const created = await create(randomUUID(), body('busybox', { SIM_DURATION_MS: '600000' }));
    const id = (created.body as RunBody).id;
    const read = await eventually(async () => {
      const r = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: tokens.a });
      return (r.body as RunBody).state === 'running' ? r : undefined;
    });
    const etag = read.headers.get('etag')!;
    const stale = await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, {
      token: tokens.a,
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', params: { currentVersion: Number(etag.replace(/"/g, '')) } });
    const current = await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, {
      token: tokens.a,
      headers: { 'if-match': etag },
    });
    expect(current.status).toBe(202);
    await eventually(async () => {
      const r = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: tokens.a });
      return (r.body as RunBody).state === 'canceled' ? true : undefined;
    });
  });

  it('If-Match on cancel ignores log lines: a simulated run printing every 100 ms is cancelled with the ETag of a GET 2 s old', async () => {
    const created = await create(randomUUID(), body('busybox', { SIM_DURATION_MS: '120000', SIM_LOG_LINES: '1000' }));
    const id = (created.body as RunBody).id;
    const read = await eventually(async () => {
      const r = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: tokens.a });
      return (r.body as RunBody).state === 'running' ? r : undefined;
    });
    await new Promise((r) => setTimeout(r, 2000));
    const later = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token: tokens.a });
    expect((later.body as { logLines: number }).logLines).toBeGreaterThan((read.body as { logLines: number }).logLines);
    expect(later.headers.get('etag')).toBe(read.headers.get('etag'));
    const res = await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, {
      token: tokens.a,
      headers: { 'if-match': read.headers.get('etag')! },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id, state: 'canceling' });
  });

  it('keeps exactly one run per key without Redis at all (Redis unreachable)', async () => {
    const noRedis = await startStack(['ws-a'], { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const k = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          noRedis.client.call('POST /runs', '/runs', { token: noRedis.token('ws-a'), headers: { 'idempotency-key': k }, body: body() }),
        ),
      );
      expect(answers.every((r) => r.status === 201)).toBe(true);
      expect(new Set(answers.map((r) => (r.body as RunBody).id)).size).toBe(1);
    } finally {
      await noRedis.stop();
    }
  });

  it('frees a key after the retention window', async () => {
    const shortMemory = await startStack(['ws-a'], { IDEMPOTENCY_RETENTION_SECONDS: '1' });
    try {
      const token = shortMemory.token('ws-a');
      const k = randomUUID();
      const call = (payload: object) =>
        shortMemory.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': k }, body: payload });
      const first = await call(body());
      expect((await call(body('alpine'))).status).toBe(409);
      const later = await eventually(
        async () => {
          const r = await call(body('alpine'));
          return r.status === 201 ? r : undefined;
        },
        10_000,
        'the key to be forgotten',
      );
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect((later.body as RunBody).id).not.toBe((first.body as RunBody).id);
    } finally {
      await shortMemory.stop();
    }
  });

  it('one run when the api is killed between the JetStream append and its answer, and the retry names it', async () => {
    const crashing = await startStack(['ws-a'], { FAILPOINT: 'api.after-create-append' });
    try {
      const k = randomUUID();
      const token = crashing.token('ws-a');
      // The api dies after the append, before answering: the client sees the gateway's retryable 503.
      const lost = await crashing.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': k }, body: body() });
      expect(lost.status).toBe(503);
      expect(lost.body).toMatchObject({ code: 'dependency_unavailable', retryable: true });
      await crashing.stack.restart('api', { FAILPOINT: '' });
      // The client rule: retry with the same key while the answer is retryable (the dead request's
      // in-flight lock lives at most 5 s).
      const retry = await eventually(
        async () => {
          const r = await crashing.client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': k }, body: body() });
          return r.status === 409 && (r.body as { code: string }).code === 'idempotency_in_flight' ? undefined : r;
        },
        15_000,
        'the in-flight lock of the crashed request to expire',
      );
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const runId = (retry.body as RunBody).id;
      const final = await eventually(async () => {
        const r = await crashing.client.call('GET /runs/{runId}', `/runs/${runId}`, { token });
        return (r.body as RunBody).state === 'succeeded' ? r : undefined;
      });
      expect((final.body as RunBody).id).toBe(runId);
      const count = await (async () => {
        const nc = await connectNats(crashing.env.natsUrl, 'count');
        const info = await (
          await jetstreamManager(nc)
        ).streams.info(new StreamNames(crashing.env.namespace).eventsStream, {
          subjects_filter: `${crashing.env.namespace}.evt.>`,
        });
        await nc.close();
        return Object.keys(info.state.subjects ?? {}).length;
      })();
      expect(count).toBe(1);
    } finally {
      await crashing.stop();
    }
  });

  it('property: any interleaving of creates, retries and cancels makes one run per (workspace, key)', async () => {
    const op = fc.record({
      ws: fc.constantFrom<'a' | 'b'>('a', 'b'),
      key: fc.constantFrom('k1', 'k2', 'k3'),
      variant: fc.constantFrom('busybox', 'alpine'),
      kind: fc.constantFrom('create', 'create', 'create', 'cancel'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (rounds) => {
        const prefix = randomUUID();
        const ids = new Map<string, Set<string>>();
        const attempted = new Set<string>();
        for (const round of rounds) {
          // Each round's requests race each other; rounds follow one another.
          await Promise.all(
            round.map(async ({ ws, key: k, variant, kind }) => {
              const logical = `${ws}/${prefix}-${k}`;
              if (kind === 'cancel') {
                const known = [...(ids.get(logical) ?? [])][0];
                if (known) {
                  const res = await f.client.call('POST /runs/{runId}:cancel', `/runs/${known}:cancel`, { token: tokens[ws] });
                  expect(res.status).toBe(202);
                }
                return;
              }
              attempted.add(logical);
              const res = await create(`${prefix}-${k}`, body(variant), ws);
              expect([201, 409]).toContain(res.status);
              if (res.status === 201) {
                ids.set(logical, (ids.get(logical) ?? new Set()).add((res.body as RunBody).id));
              }
            }),
          );
        }
        // The model: one run per distinct (workspace, key) that was ever attempted, and every 2xx for
        // one logical request named that same run.
        for (const set of ids.values()) {
          expect(set.size).toBe(1);
        }
        const counts = await eventually(
          async () => {
            const rows: { distinct: string; total: string }[] = await db.query(
              `SELECT count(DISTINCT (workspace_id, body->>'idempotencyKey')) AS distinct, count(*) AS total
               FROM runs WHERE body->>'idempotencyKey' LIKE $1`,
              [`${prefix}-%`],
            );
            return Number(rows[0]?.total) >= attempted.size ? rows[0] : undefined;
          },
          10_000,
          'projection of every run',
        );
        expect(Number(counts.total)).toBe(attempted.size);
        expect(Number(counts.distinct)).toBe(attempted.size);
      }),
      { numRuns: 15 },
    );
  });
});
