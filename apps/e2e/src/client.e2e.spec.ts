import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { WrsApiError, WrsClient, type FollowItem, type RetryPolicy } from '@wrs/client';
import { StreamNames } from '@wrs/messaging';
import { openDatabase, Workspaces } from '@wrs/persistence';
import {
  contractCheckedFetch,
  contractValidator,
  startFaultyProxy,
  type CheckedFetch,
  type FaultyProxy,
  type ProxyAction,
} from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

const FAST: Partial<RetryPolicy> = { baseDelayMs: 50, maxDelayMs: 1000, maxAttempts: 6, maxElapsedMs: 20_000 };
const simulated = (env: Record<string, string> = {}) => ({ workload: { image: 'busybox', env }, provider: 'auto', region: 'auto' });

/** A problem+json answer as the contract describes it, for a proxy to give in the api's place. */
function problem(status: number, code: string, retryable: boolean, retryAfter?: number): ProxyAction {
  return {
    status,
    headers: {
      'content-type': 'application/problem+json',
      'x-request-id': `proxy-${code}`,
      ...(retryAfter ? { 'retry-after': String(retryAfter) } : {}),
    },
    body: JSON.stringify({
      type: `urn:workload-run-service:problem:${code}`,
      title: code,
      status,
      code,
      requestId: `proxy-${code}`,
      retryable,
    }),
  };
}

/**
 * The typed client against the real stack (through the gateway, over real sockets), with a faulty proxy
 * in between where a fault is the point: it keeps one key per create, retries only what the spec allows,
 * within its bounds, and follows event streams across relay restarts.
 */
describe('the typed client obeys the client rules of the spec', () => {
  let f: StackFixture;
  let proxy: FaultyProxy | undefined;
  const tokens: string[] = [];
  const thrown: string[] = [];

  beforeAll(async () => {
    f = await startStack(['ws-client', 'ws-lossy', 'ws-limited']);
    const db = await openDatabase(f.env.database);
    await new Workspaces(db).setLimits('ws-limited', { requestsPerMinute: 20 });
    await db.destroy();
  });

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  afterAll(async () => {
    // No token in any URL the client called, nor in any message it threw.
    await f?.stop();
    for (const token of tokens) {
      expect(thrown.filter((m) => m.includes(token))).toEqual([]);
    }
  });

  function clientFor(
    workspace: string,
    apiRoot = f.stack.baseUrl,
    retry: Partial<RetryPolicy> = FAST,
  ): { client: WrsClient; checked: CheckedFetch } {
    const token = f.token(workspace);
    tokens.push(token);
    const checked = contractCheckedFetch(apiRoot);
    return { client: new WrsClient({ baseUrl: apiRoot, token, workspaceId: workspace, fetch: checked.fetch, retry }), checked };
  }

  async function rejection(promise: Promise<unknown>): Promise<WrsApiError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WrsApiError);
    thrown.push((error as Error).message);
    return error as WrsApiError;
  }

  function expectCleanCalls(checked: CheckedFetch): void {
    expect(checked.violations).toEqual([]);
    for (const token of tokens) {
      expect(checked.sent.filter((s) => s.url.includes(token))).toEqual([]);
    }
  }

  /**
   * The runs a workspace has, by their subjects in the events stream: every run's `run.created` is stored
   * before its create is answered, so this holds every run a client's calls made once they have been
   * answered. (The projection's rows may still be a moment behind: counting them once read 0 in CI.)
   */
  async function runsIn(workspace: string): Promise<number> {
    const nc = await connect({ servers: f.env.natsUrl });
    try {
      const names = new StreamNames(f.env.namespace);
      const info = await (
        await jetstreamManager(nc)
      ).streams.info(names.eventsStream, { subjects_filter: names.runEvents(workspace, '*') });
      return Object.keys(info.state.subjects ?? {}).length;
    } finally {
      await nc.close();
    }
  }

  it('checks the deployed contract first, and pins the version it was generated from', async () => {
    const { client, checked } = clientFor('ws-client');
    const version = await client.checkVersion();
    expect(version.value.contractVersion).toBe(WrsClient.pinnedContractVersion);
    expect(version.requestId).toMatch(/\S/);
    expect(checked.sent[0]?.headers.get('user-agent')).toContain(`contract ${WrsClient.pinnedContractVersion}`);
    expectCleanCalls(checked);
  });

  it('a create whose first answer is lost is retried with the same Idempotency-Key and yields exactly one run', async () => {
    proxy = await startFaultyProxy(new URL(f.stack.baseUrl).origin, (req) =>
      req.method === 'POST' && req.url === '/api/v1/runs' && proxy!.requests.every((r) => r.method !== 'POST')
        ? 'lose-response'
        : 'forward',
    );
    const { client, checked } = clientFor('ws-lossy', `${proxy.origin}/api/v1`);
    const created = await client.createRun(simulated());
    const posts = proxy.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts.map((p) => p.headers['idempotency-key'])).toEqual([created.idempotencyKey, created.idempotencyKey]);
    expect(created.attempts).toBe(2);
    expect(created.replayed).toBe(true);
    // Attempts of one logical request share the X-Request-ID stem; the answer's id is the server's.
    const [first, second] = posts.map((p) => String(p.headers['x-request-id']));
    expect(second).toBe(`${first}.2`);
    expect(created.requestId).toBe(second);
    const items: FollowItem[] = [];
    for await (const item of client.follow(created.value.id)) {
      items.push(item);
    }
    expect(items.at(-1)).toMatchObject({ kind: 'event', event: { type: 'run.succeeded' } });
    expect(await runsIn('ws-lossy')).toBe(1);
    // And a client that had lost it for good finds the run by its key.
    const found = await client.listRuns({ idempotencyKey: created.idempotencyKey });
    expect(found.value.items.map((r) => r.id)).toEqual([created.value.id]);
    expectCleanCalls(checked);
  });

  it('rides out a storm of real 429s (20 requests a minute) within its bounds, honouring Retry-After, one key per create', async () => {
    const { client, checked } = clientFor('ws-limited', f.stack.baseUrl, {
      baseDelayMs: 100,
      maxDelayMs: 2000,
      maxAttempts: 30,
      maxElapsedMs: 60_000,
    });
    // Spend the workspace's budget first, so every call below starts with a 429.
    const raw = clientFor('ws-limited', f.stack.baseUrl, { maxAttempts: 1 }).client;
    for (let spent = 0; spent < 100; spent++) {
      const answer = await raw.workspace().then(
        () => undefined,
        (e: unknown) => e,
      );
      if (answer instanceof WrsApiError && answer.status === 429) {
        break;
      }
    }
    const created = client.createRun(simulated());
    const reads = [client.workspace(), client.workspace()];
    const results = [await created, ...(await Promise.all(reads))];
    const refused = checked.sent.filter((s) => s.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    // Each retry came no sooner than the Retry-After (>= 1 s) of the 429 before it.
    let pairs = 0;
    for (const answer of refused) {
      const id = answer.headers.get('x-request-id')!;
      const [stem, n] = id.split('.');
      const next = checked.sent.find((s) => s.headers.get('x-request-id') === `${stem}.${Number(n ?? 1) + 1}`);
      if (next) {
        pairs++;
        expect(next.at - answer.at).toBeGreaterThanOrEqual(1000 * Number(answer.retryAfter));
      }
    }
    expect(pairs).toBe(refused.length);
    const createAttempts = checked.sent.filter((s) => s.method === 'POST');
    expect(createAttempts.length).toBe((await created).attempts);
    expect(new Set(createAttempts.map((s) => s.headers.get('idempotency-key')))).toEqual(new Set([(await created).idempotencyKey]));
    expect(await runsIn('ws-limited')).toBe(1);
    expectCleanCalls(checked);
  }, 90_000);

  it('does not retry a 400, a 404 or a 409 idempotency_conflict; the error carries code, status and the server request id', async () => {
    proxy = await startFaultyProxy(new URL(f.stack.baseUrl).origin);
    const { client, checked } = clientFor('ws-client', `${proxy.origin}/api/v1`);
    const bad = await rejection(client.createRun({ workload: { image: '' }, provider: 'auto', region: 'auto' }));
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed', retryable: false, attempts: 1 });
    expect(bad.requestId).toBe(checked.sent[0]?.headers.get('x-request-id'));
    const missing = await rejection(client.getRun('00000000-0000-4000-8000-000000000000'));
    expect(missing).toMatchObject({ status: 404, code: 'run_not_found', attempts: 1 });
    const first = await client.createRun(simulated());
    const conflict = await rejection(client.createRun(simulated({ SIM_EXIT_CODE: '1' }), { idempotencyKey: first.idempotencyKey }));
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict', attempts: 1 });
    // One request each: nothing was retried.
    expect(proxy.requests.map((r) => `${r.method} ${r.url.split('/').slice(3, 4).join('')}`)).toEqual([
      'POST runs',
      'GET runs',
      'POST runs',
      'POST runs',
    ]);
    expectCleanCalls(checked);
  });

  it('retries 409 idempotency_in_flight and a retryable 503 after their Retry-After with the same key, but not a 500 that is not retryable', async () => {
    const script: ProxyAction[] = [problem(409, 'idempotency_in_flight', true, 1), problem(503, 'dependency_unavailable', true, 1)];
    proxy = await startFaultyProxy(new URL(f.stack.baseUrl).origin, (req) =>
      req.method === 'POST' ? (script.shift() ?? 'forward') : 'forward',
    );
    const { client, checked } = clientFor('ws-client', `${proxy.origin}/api/v1`);
    const created = await client.createRun(simulated());
    expect(created.attempts).toBe(3);
    const posts = proxy.requests.filter((r) => r.method === 'POST');
    expect(new Set(posts.map((p) => p.headers['idempotency-key']))).toEqual(new Set([created.idempotencyKey]));
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(1000);
    script.push(problem(500, 'internal_error', false));
    const fatal = await rejection(client.createRun(simulated()));
    expect(fatal).toMatchObject({ status: 500, code: 'internal_error', attempts: 1 });
    expectCleanCalls(checked);
  });

  it('follows a run across a relay restart: every event once, in order, resuming with Last-Event-ID', async () => {
    const { client, checked } = clientFor('ws-client');
    const lines = 30;
    const created = await client.createRun(simulated({ SIM_LOG_LINES: String(lines), SIM_DURATION_MS: '3000' }));
    const items: FollowItem[] = [];
    let restarted: Promise<void> | undefined;
    for await (const item of client.follow(created.value.id)) {
      items.push(item);
      if (items.length === 10) {
        restarted = f.stack.restart('stream-relay');
      }
    }
    await restarted;
    const events = items.flatMap((i) => (i.kind === 'event' ? [i] : []));
    expect(events).toHaveLength(items.length);
    for (const { event } of events) {
      contractValidator().assertSchema('RunEvent', event);
    }
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect(events.map((e) => e.event.type)).toEqual([
      'run.created',
      'run.dispatched',
      'run.started',
      ...Array<string>(lines).fill('run.log'),
      'run.succeeded',
    ]);
    // It really reconnected, and said where it stood.
    const streams = checked.sent.filter((s) => s.url.endsWith('/events'));
    expect(streams.length).toBeGreaterThanOrEqual(2);
    const resumedFrom = Number(streams[1]!.headers.get('last-event-id'));
    expect(ids).toContain(resumedFrom);
    expect(resumedFrom).toBeGreaterThanOrEqual(ids[9]!);
    expectCleanCalls(checked);
  }, 60_000);

  it('a follow of a finished run from after its last event ends at once (204)', async () => {
    const { client, checked } = clientFor('ws-client');
    const created = await client.createRun(simulated());
    const items: FollowItem[] = [];
    for await (const item of client.follow(created.value.id)) {
      items.push(item);
    }
    const again: FollowItem[] = [];
    for await (const item of client.follow(created.value.id, { lastEventId: items.at(-1)!.id })) {
      again.push(item);
    }
    expect(again).toEqual([]);
    expect(checked.sent.at(-1)?.status).toBe(204);
    expectCleanCalls(checked);
  });
});
