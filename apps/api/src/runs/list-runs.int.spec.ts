import { randomUUID } from 'node:crypto';
import type { RunEvent } from '@wrs/domain';
import { migrate, openDatabase } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { startApi, type InProcessApi } from '../in-process-api.testing';

interface RunBody {
  id: string;
  workspaceId: string;
  state: string;
  createdAt: string;
  idempotencyKey: string;
  version: number;
}
interface ListBody {
  items: RunBody[];
  nextCursor: string | null;
}
interface ProblemBody {
  code: string;
  params?: { errors?: { field: string; min?: number; max?: number; allowed?: string[] }[] };
}

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const MINUTE = 60_000;

/**
 * GET /runs against the real projection (Postgres) and the real api on a socket: runs are projected
 * from events with chosen creation times, so order, ties, paging and every filter are checked exactly.
 * Every answer goes through the contract client, so each 200 and each 400 is held to the contract.
 */
describe("GET /runs: the workspace's runs, newest first, a page at a time", () => {
  const { key, publicKeyFile } = testSigningKey();
  const tokenA = testToken(key, 'ws-list-a');
  const tokenB = testToken(key, 'ws-list-b');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let db: DataSource;
  /** ws-list-a's runs as the list must show them: newest first, ties by id descending. */
  let expectedA: { id: string; createdAt: number; canceled: boolean; key: string }[] = [];
  const runsB: string[] = [];

  async function seed(workspaceId: string, createdAt: number, canceled: boolean, idempotencyKey: string = randomUUID()): Promise<string> {
    const runId = randomUUID();
    const at = new Date(createdAt).toISOString();
    const projection = new RunProjection(db);
    const created: RunEvent = {
      type: 'run.created',
      data: { runId, workspaceId, workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey, at },
    };
    await projection.project(runId, 1, created);
    if (canceled) {
      await projection.project(runId, 2, { type: 'run.canceled', data: { requestedBy: 'test-user', at } });
    }
    return runId;
  }

  const list = async (query: string, token = tokenA) => api.client.call('GET /runs', `/runs${query}`, { token });
  const body = (res: { body: unknown }): ListBody => res.body as ListBody;

  async function pageThrough(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = query ? '&' : '';
      const res = await list(`?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = body(res);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      ids.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 100);
    return { ids, pages };
  }

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { LIMIT_REQUESTS_PER_MINUTE: '1000000', LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000' });
    await api.deps.module.workspaces.ensure('ws-list-a', 'List A');
    await api.deps.module.workspaces.ensure('ws-list-b', 'List B');
    db = await openDatabase(env.database);
    const seeded: typeof expectedA = [];
    for (let i = 0; i < 45; i++) {
      // Runs 10 to 14 share one creation time: only the id orders them.
      const createdAt = i >= 10 && i < 15 ? T0 + 10 * MINUTE : T0 + i * MINUTE;
      const idempotencyKey = `key-${i}`;
      const id = await seed('ws-list-a', createdAt, i % 3 === 0, idempotencyKey);
      seeded.push({ id, createdAt, canceled: i % 3 === 0, key: idempotencyKey });
    }
    expectedA = seeded.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
    for (let i = 0; i < 3; i++) {
      // Newer than all of A's, one with A's key: none may ever show in A's list.
      runsB.push(await seed('ws-list-b', T0 + (100 + i) * MINUTE, false, i === 0 ? 'key-5' : `other-${i}`));
    }
  });

  afterAll(async () => {
    await db?.destroy();
    await api?.close();
    await env?.cleanup();
  });

  it('lists newest first (ties by id) in pages of the default size 20', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    const first = body(res);
    expect(first.items.map((r) => r.id)).toEqual(expectedA.slice(0, 20).map((r) => r.id));
    expect(first.nextCursor).toEqual(expect.any(String));
  });

  it('pages through every run with no gap and no duplicate, the last page saying so (nextCursor null)', async () => {
    for (const limit of [1, 7, 20, 45, 100]) {
      const { ids, pages } = await pageThrough('', limit);
      expect(ids).toEqual(expectedA.map((r) => r.id));
      expect(pages).toBe(Math.ceil(45 / limit));
    }
  });

  it('filters by state (one, comma-separated, or repeated), and pages through a filtered list', async () => {
    const canceled = expectedA.filter((r) => r.canceled).map((r) => r.id);
    const queued = expectedA.filter((r) => !r.canceled).map((r) => r.id);
    expect((await pageThrough('state=canceled', 4)).ids).toEqual(canceled);
    expect((await pageThrough('state=queued', 6)).ids).toEqual(queued);
    expect((await pageThrough('state=queued,canceled', 10)).ids).toEqual(expectedA.map((r) => r.id));
    expect((await pageThrough('state=canceled&state=running', 10)).ids).toEqual(canceled);
    expect(body(await list('?state=succeeded')).items).toEqual([]);
  });

  it('filters by creation time: createdAfter inclusive, createdBefore exclusive, any RFC 3339 offset', async () => {
    const after = new Date(T0 + 20 * MINUTE).toISOString();
    const before = '2026-03-01T11:30:00+01:00'; // T0 + 30 min
    const expected = expectedA.filter((r) => r.createdAt >= T0 + 20 * MINUTE && r.createdAt < T0 + 30 * MINUTE).map((r) => r.id);
    expect(expected).toHaveLength(10);
    const { ids } = await pageThrough(`createdAfter=${after}&createdBefore=${encodeURIComponent(before)}`, 3);
    expect(ids).toEqual(expected);
    // Sub-millisecond digits: a run at .000 is before .000001, so createdAfter=.000001 leaves it out.
    const justAfter = body(await list(`?createdAfter=${encodeURIComponent('2026-03-01T10:44:00.000001Z')}&limit=100`));
    expect(justAfter.items.map((r) => r.id)).toEqual([]);
  });

  it("finds a run by its Idempotency-Key, in the caller's workspace only", async () => {
    const run = expectedA.find((r) => r.key === 'key-5');
    const res = await list('?idempotencyKey=key-5');
    expect(body(res).items.map((r) => r.id)).toEqual([run?.id]);
    const inB = await list('?idempotencyKey=key-5', tokenB);
    expect(body(inB).items.map((r) => r.id)).toEqual([runsB[0]]);
    expect(body(await list('?idempotencyKey=never-used')).items).toEqual([]);
  });

  it('finds a run accepted a moment ago by its Idempotency-Key even before the projection has it', async () => {
    // No run-worker runs in this test: the run stays accepted and unprojected.
    const idempotencyKey = `lost-answer-${randomUUID()}`;
    const created = await api.client.call('POST /runs', '/runs', {
      token: tokenA,
      headers: { 'idempotency-key': idempotencyKey },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    expect(created.status).toBe(201);
    const found = body(await list(`?idempotencyKey=${idempotencyKey}`));
    // Read from the run's events: its version is its first event's, where the create answer says 0.
    const { version, ...answered } = created.body as RunBody;
    expect(version).toBe(0);
    expect(found.items).toEqual([{ ...answered, version: expect.any(Number) }]);
    expect(found.items[0]?.version).toBeGreaterThan(0);
    expect(found.nextCursor).toBeNull();
    expect(body(await list(`?idempotencyKey=${idempotencyKey}&state=canceled`)).items).toEqual([]);
    expect(body(await list(`?idempotencyKey=${idempotencyKey}`, tokenB)).items).toEqual([]);
  });

  it("never lists another workspace's runs", async () => {
    const { ids } = await pageThrough('', 100);
    expect(ids.filter((id) => runsB.includes(id))).toEqual([]);
    const inB = body(await list('?limit=100', tokenB));
    expect(inB.items.map((r) => r.id).sort()).toEqual([...runsB].sort());
    expect(inB.items.every((r) => r.workspaceId === 'ws-list-b')).toBe(true);
    // A's cursor in B's hands pages B's runs, never A's.
    const cursorA = body(await list('?limit=1')).nextCursor ?? '';
    const withA = body(await list(`?cursor=${cursorA}&limit=100`, tokenB));
    expect(withA.items.every((r) => r.workspaceId === 'ws-list-b')).toBe(true);
  });

  describe('bad parameters are 400 problems naming the parameter, never a 500', () => {
    const cases: [string, string, string, Record<string, unknown>][] = [
      ['limit 0', '?limit=0', 'validation_failed', { field: 'limit', min: 1, max: 100 }],
      ['limit 101', '?limit=101', 'validation_failed', { field: 'limit', min: 1, max: 100 }],
      ['limit not a number', '?limit=ten', 'validation_failed', { field: 'limit', min: 1, max: 100 }],
      ['limit negative', '?limit=-1', 'validation_failed', { field: 'limit' }],
      ['limit given twice', '?limit=1&limit=2', 'validation_failed', { field: 'limit' }],
      ['cursor given twice', '?cursor=abc&cursor=def', 'validation_failed', { field: 'cursor' }],
      [
        'an unknown state',
        '?state=queued,done',
        'validation_failed',
        { field: 'state', allowed: ['queued', 'starting', 'running', 'canceling', 'succeeded', 'failed', 'canceled'] },
      ],
      ['an empty state', '?state=', 'validation_failed', { field: 'state' }],
      ['createdAfter not a date', '?createdAfter=yesterday', 'validation_failed', { field: 'createdAfter' }],
      ['createdBefore 31 February', '?createdBefore=2026-02-31T00:00:00Z', 'validation_failed', { field: 'createdBefore' }],
      ['createdAfter without offset', '?createdAfter=2026-01-01T00:00:00', 'validation_failed', { field: 'createdAfter' }],
      ['createdAfter in year 0', '?createdAfter=0000-01-01T00:00:00Z', 'validation_failed', { field: 'createdAfter' }],
      ['an empty idempotencyKey', '?idempotencyKey=', 'validation_failed', { field: 'idempotencyKey' }],
      ['an unknown parameter', '?status=queued', 'validation_failed', { field: 'status' }],
    ];
    it.each(cases)('%s', async (_name, query, code, error) => {
      const res = await list(query);
      expect(res.status).toBe(400);
      const problem = res.body as ProblemBody;
      expect(problem.code).toBe(code);
      expect(problem.params?.errors).toEqual(expect.arrayContaining([expect.objectContaining(error)]));
    });

    const forged = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    it.each([
      ['not base64url', '!!!'],
      ['base64url of no JSON', Buffer.from('hello').toString('base64url')],
      ['JSON of the wrong shape', forged({ createdAt: '2026-01-01T00:00:00Z', id: randomUUID() })],
      ['a bad time', forged(['2026-13-01T00:00:00Z', randomUUID()])],
      ['a bad id', forged(['2026-01-01T00:00:00Z', "'; DROP TABLE runs; --"])],
      ['too long', 'A'.repeat(201)],
    ])('a forged cursor (%s) is invalid_cursor', async (_name, cursor) => {
      const res = await list(`?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status).toBe(400);
      expect((res.body as ProblemBody).code).toBe('invalid_cursor');
    });
  });

  it('property: any query string is a 200 or a 400 problem, never a 5xx', async () => {
    const name = fc.constantFrom('limit', 'cursor', 'state', 'createdAfter', 'createdBefore', 'idempotencyKey', 'x', 'state[]');
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.integer({ min: -1000, max: 1000 }).map(String),
      fc.date({ min: new Date(-62_198_755_200_000), max: new Date(253_402_300_799_999), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('queued', 'queued,running', ',', '9999-12-31T23:59:59-23:59', '0001-01-01T00:00:00+14:00', 'eyJ9', 'W10'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const res = await list(`?${query}`);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 400 },
    );
  });

  it('needs a credential', async () => {
    const res = await api.client.call('GET /runs', '/runs');
    expect(res.status).toBe(401);
  });
});
