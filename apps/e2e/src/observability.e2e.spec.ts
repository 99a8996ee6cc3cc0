import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { openDatabase, Workspaces } from '@wrs/persistence';
import { eventually, readSse, testInfrastructure } from '@wrs/testing';
import { OtlpReceiver } from './observability/otlp-receiver';
import { scrape, sumOf, type PromSample } from './observability/prometheus-text';
import { TcpProxy } from './observability/tcp-proxy';
import { startStack, type StackFixture } from './stack-fixture';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const TRACE_ID = /^[0-9a-f]{32}$/;

interface LogLine {
  readonly service: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * The operator's view of the stack, as processes over real sockets: Prometheus metrics on each
 * process's operator port, one request followed through the logs and traces of all three services,
 * and readiness that follows Postgres (cut and restored by a TCP proxy) and draining.
 */
describe('observability: metrics, logs, traces and health of the running stack', () => {
  const receiver = new OtlpReceiver();
  let proxy: TcpProxy;
  let f: StackFixture;
  let token: string;

  const metricsPort = (service: string): number => {
    const port = f.stack.metricsPortOf(service);
    if (port === undefined) {
      throw new Error(`${service} has no operator port`);
    }
    return port;
  };
  const health = async (service: string, probe: 'live' | 'ready'): Promise<{ status: number; body: Record<string, unknown> }> => {
    // An operator port, not the API: no contract operation to hold it to.
    const res = await fetch(`http://127.0.0.1:${metricsPort(service)}/health/${probe}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const logLines = (): LogLine[] =>
    f.logs.flatMap((line) => {
      const json = line.slice(line.indexOf(' ') + 1);
      try {
        return [JSON.parse(json) as LogLine];
      } catch {
        return [];
      }
    });

  const createRun = (key: string, headers: Record<string, string> = {}) =>
    f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': key, ...headers },
      body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '50' } }, provider: 'auto', region: 'auto' },
    });
  const followToTheEnd = async (runId: string): Promise<number> => {
    const result = await readSse(`${f.stack.baseUrl}/runs/${runId}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 15_000 });
    expect(result.endedByServer).toBe(true);
    return result.events.length;
  };

  beforeAll(async () => {
    const otlpEndpoint = await receiver.start();
    const database = new URL(testInfrastructure().databaseUrl);
    proxy = new TcpProxy(database.hostname, Number(database.port || 5432));
    database.port = String(await proxy.start());
    f = await startStack(['ws-obs', 'ws-slow'], {
      DATABASE_URL: database.toString(),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
      // Every trace recorded, so each request's trail can be followed (the default records a tenth).
      OTEL_TRACES_SAMPLER_ARG: '1',
      LOG_LEVEL: 'debug',
      SHUTDOWN_DELAY_MS: '1500',
    });
    token = f.token('ws-obs');
  });

  afterAll(async () => {
    await f?.stop();
    await proxy?.stop();
    await receiver.stop();
  });

  it('counters move by exactly what the end-to-end flow did', async () => {
    const db = await openDatabase(f.env.database);
    await new Workspaces(db).setLimits('ws-slow', { tokenRequestsPerMinute: 1 });
    await db.destroy();
    const before = {
      api: await scrape(metricsPort('api')),
      relay: await scrape(metricsPort('stream-relay')),
      worker: await scrape(metricsPort('run-worker')),
    };
    const delta = (after: PromSample[], was: PromSample[], name: string, labels: Record<string, string> = {}): number =>
      sumOf(after, name, labels) - sumOf(was, name, labels);

    const keys = [randomUUID(), randomUUID(), randomUUID()];
    const runIds: string[] = [];
    for (const key of keys) {
      const created = await createRun(key);
      expect(created.status).toBe(201);
      runIds.push((created.body as { id: string }).id);
    }
    const replay = await createRun(keys[0]!);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    let eventsReceived = 0;
    for (const runId of runIds) {
      eventsReceived += await followToTheEnd(runId);
    }
    const slow = f.token('ws-slow');
    expect((await f.client.call('GET /workspaces/current', '/workspaces/current', { token: slow })).status).toBe(200);
    expect((await f.client.call('GET /workspaces/current', '/workspaces/current', { token: slow })).status).toBe(429);

    // A request is observed when its answer is handed to the socket: a moment after the client may have it.
    const api = await eventually(
      async () => {
        const now = await scrape(metricsPort('api'));
        const observed = delta(now, before.api, 'wrs_http_request_duration_seconds_count', { route: '/api/v1/workspaces/current' });
        return observed >= 2 ? now : undefined;
      },
      10_000,
      'the api to observe the last requests',
    );
    expect(delta(api, before.api, 'wrs_runs_created_total')).toBe(3);
    expect(delta(api, before.api, 'wrs_idempotent_replays_total')).toBe(1);
    expect(delta(api, before.api, 'wrs_rate_limit_rejections_total', { limit: 'requests' })).toBe(1);
    expect(
      delta(api, before.api, 'wrs_http_request_duration_seconds_count', { route: '/api/v1/runs', method: 'POST', status: '201' }),
    ).toBe(4);
    expect(delta(api, before.api, 'wrs_http_request_duration_seconds_count', { route: '/api/v1/workspaces/current', status: '429' })).toBe(
      1,
    );
    // Route templates only: no run id ever becomes a label value.
    expect(api.filter((s) => Object.values(s.labels).some((v) => UUID.test(v)))).toEqual([]);
    expect(sumOf(api, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    const relay = await scrape(metricsPort('stream-relay'));
    expect(eventsReceived).toBe(12); // created, dispatched, started, succeeded for each run
    expect(delta(relay, before.relay, 'wrs_sse_events_sent_total')).toBe(eventsReceived);
    expect(delta(relay, before.relay, 'wrs_sse_events_sent_total', { type: 'run.succeeded' })).toBe(3);
    expect(
      sumOf(relay, 'wrs_http_request_duration_seconds_count', { route: '/api/v1/runs/:runId/events', status: '200' }),
    ).toBeGreaterThanOrEqual(3);
    await eventually(async () => (sumOf(await scrape(metricsPort('stream-relay')), 'wrs_sse_open_streams') === 0 ? true : undefined));

    const worker = await eventually(async () => {
      const now = await scrape(metricsPort('run-worker'));
      return delta(now, before.worker, 'wrs_projection_lag_seconds_count') >= eventsReceived ? now : undefined;
    });
    expect(delta(worker, before.worker, 'wrs_runs_finished_total', { state: 'succeeded' })).toBe(3);
    expect(delta(worker, before.worker, 'wrs_projection_lag_seconds_count')).toBe(eventsReceived);
    // At least one submit per run: until its dispatch is projected a run may be submitted again (idempotently).
    expect(
      delta(worker, before.worker, 'wrs_dispatch_duration_seconds_count', { provider: 'simulator', outcome: 'accepted' }),
    ).toBeGreaterThanOrEqual(3);
    // Polled from JetStream's consumer info at scrape time: both consumers, caught up.
    expect(
      worker
        .filter((s) => s.name === 'wrs_jetstream_consumer_pending_messages')
        .map((s) => s.labels['consumer'])
        .sort(),
    ).toEqual(['commands', 'projection']);
    expect(sumOf(worker, 'wrs_jetstream_consumer_pending_messages')).toBe(0);
    expect(worker.some((s) => s.name === 'wrs_jetstream_consumer_redelivered_messages')).toBe(true);
  });

  it("follows one request's requestId and trace id through the logs and traces of api, worker and relay", async () => {
    const requestId = `trail-${randomUUID()}`;
    const created = await createRun(randomUUID(), { 'x-request-id': requestId });
    expect(created.headers.get('x-request-id')).toBe(requestId);
    const runId = (created.body as { id: string }).id;
    await followToTheEnd(runId);

    const apiLine = await eventually(() =>
      Promise.resolve(logLines().find((l) => l.service === 'api' && l.msg === 'request' && l['requestId'] === requestId)),
    );
    expect(apiLine).toMatchObject({ method: 'POST', route: '/api/v1/runs', status: 201, workspaceId: 'ws-obs' });
    expect(apiLine['durationMs']).toEqual(expect.any(Number));
    const traceId = apiLine['traceId'] as string;
    expect(traceId).toMatch(TRACE_ID);

    // The relay logs an event once written; its output reaches us a moment after the client has it.
    const relayLines = await eventually(() => {
      const lines = logLines().filter((l) => l.service === 'stream-relay' && l.msg === 'event sent' && l['runId'] === runId);
      return Promise.resolve(lines.length >= 4 ? lines : undefined);
    });
    expect(relayLines.map((l) => l['type'])).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    // The event the request's command decided carries the request's ids to the relay. (Later events are
    // decided by the reconciler: right after the projection, in the same trace, or by its periodic sweep,
    // which starts a trace of its own; those lines carry the ids of the stream's own request.)
    expect(relayLines[0]).toMatchObject({ requestId, traceId, workspaceId: 'ws-obs' });
    for (const line of relayLines) {
      expect(line['traceId']).toMatch(TRACE_ID);
      expect(line['requestId']).toEqual(expect.any(String));
    }

    const spans = await eventually(
      () => {
        const inTrace = receiver.spans.filter((s) => s.traceId === traceId);
        const ids = new Set(inTrace.map((s) => s.spanId));
        // Every span's parent is in the same trace (batches arrive at different times: wait for them all).
        const complete = inTrace.every((s) => !s.parentSpanId || ids.has(s.parentSpanId));
        const everywhere = ['api', 'run-worker', 'stream-relay'].every((service) => inTrace.some((s) => s.service === service));
        return Promise.resolve(complete && everywhere ? inTrace : undefined);
      },
      15_000,
      'a complete trace with spans of all three services',
    );
    const names = spans.map((s) => `${s.service}: ${s.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'api: POST /api/v1/runs',
        // The api appends the run's first event itself; the worker projects it in the same trace.
        'api: publish run.event',
        'run-worker: handle projection',
        'stream-relay: deliver run.event',
      ]),
    );
    // One root: the api's request.
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['POST /api/v1/runs']);

    // A cancel is decided by the api: the event it appends carries the cancel request's ids to the relay.
    const long = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox', env: { SIM_DURATION_MS: '600000' } }, provider: 'auto', region: 'auto' },
    });
    const longId = (long.body as { id: string }).id;
    // Canceled once running, so the api's decision is run.cancel_requested (a queued run is canceled at once).
    await eventually(
      async () => {
        const read = await f.client.call('GET /runs/{runId}', `/runs/${longId}`, { token });
        return (read.body as { state: string }).state === 'running' ? true : undefined;
      },
      30_000,
      'the long run running',
    );
    const cancelRequestId = `trail-cancel-${randomUUID()}`;
    const canceled = await f.client.call('POST /runs/{runId}:cancel', `/runs/${longId}:cancel`, {
      token,
      headers: { 'x-request-id': cancelRequestId },
    });
    expect(canceled.status).toBe(202);
    // The event the cancel decided: the run's end if it was not dispatched yet, else the request to stop it.
    const decided = (canceled.body as { state: string }).state === 'canceled' ? 'run.canceled' : 'run.cancel_requested';
    await followToTheEnd(longId);
    const cancelLine = await eventually(() =>
      Promise.resolve(
        logLines().find((l) => l.service === 'stream-relay' && l.msg === 'event sent' && l['runId'] === longId && l['type'] === decided),
      ),
    );
    expect(cancelLine).toMatchObject({ requestId: cancelRequestId, workspaceId: 'ws-obs' });
    expect(cancelLine['traceId']).toMatch(TRACE_ID);
  });

  it('readiness turns false while Postgres is unreachable and true when it returns; liveness stays true', async () => {
    for (const service of ['api', 'stream-relay', 'run-worker', 'gateway']) {
      expect((await health(service, 'ready')).status).toBe(200);
    }
    proxy.cut();
    for (const service of ['api', 'stream-relay', 'run-worker']) {
      const down = await eventually(
        async () => {
          const ready = await health(service, 'ready');
          return ready.status === 503 ? ready : undefined;
        },
        10_000,
        `${service} unready`,
      );
      expect(down.body).toMatchObject({ status: 'error', error: { postgres: { status: 'down' } }, info: { nats: { status: 'up' } } });
      expect(await health(service, 'live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    }
    expect((await health('gateway', 'ready')).status).toBe(200);
    proxy.restore();
    for (const service of ['api', 'stream-relay', 'run-worker']) {
      await eventually(async () => ((await health(service, 'ready')).status === 200 ? true : undefined), 15_000, `${service} ready again`);
    }
  });

  it('readiness turns false from SIGTERM on while the service drains, then it exits cleanly', async () => {
    for (const service of ['api', 'run-worker']) {
      const child = f.stack.processes.get(service)!;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const draining = await eventually(
        async () => {
          const ready = await health(service, 'ready');
          return ready.status === 503 ? ready : undefined;
        },
        1000,
        `${service} unready after SIGTERM`,
      );
      expect(draining.body).toMatchObject({ error: { lifecycle: { status: 'down', draining: true } } });
      // Still alive and still serving during the drain delay: Kubernetes takes it out of the endpoints first.
      expect((await health(service, 'live')).status).toBe(200);
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    }
  });
});
