import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createLogger } from '@wrs/observability';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

/**
 * A `Prefer: wait` its client gives up on: the socket's close event fires outside the request's async
 * context (5056b3a stopped binding the request and response to it, 5-8 % of the api's CPU), yet the
 * wait is dropped and what is logged and ended belongs to the request. The line's spanId comes only
 * from the logger's mixin, so it shows the line was written in the request's context.
 */
describe('a Prefer: wait closed by its client is logged and traced as its request', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-wait-closed');
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const lines: Record<string, unknown>[] = [];
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    provider.register();
    env = await isolatedEnvironment();
    await migrate(env.database);
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    api = await startApi(env, publicKeyFile, {}, undefined, { logger: createLogger('api', 'info', output) });
    await api.deps.module.workspaces.ensure('ws-wait-closed', 'Wait closed');
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
    await provider.shutdown();
  });

  it("the wait is dropped; the close's line carries the request id and the request's span", async () => {
    const created = await api.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    const runId = (created.body as { id: string }).id;
    const traceId = randomBytes(16).toString('hex');
    const requestId = `wait-closed-${runId}`;
    const client = new AbortController();
    const answer = fetch(`${api.url}/runs/${runId}`, {
      headers: {
        authorization: `Bearer ${token}`,
        prefer: 'wait=20',
        'x-request-id': requestId,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      signal: client.signal,
    });
    const endings = api.deps.module.endings;
    await eventually(() => Promise.resolve(endings.waiting === 1 || undefined), 10_000, 'the request waiting');
    client.abort();
    await expect(answer).rejects.toThrow();
    await eventually(() => Promise.resolve(endings.waiting === 0 || undefined), 10_000, 'the wait dropped');
    const line = await eventually(
      () => Promise.resolve(lines.find((l) => l['msg'] === 'request closed by the client' && l['requestId'] === requestId)),
      10_000,
      'the close logged',
    );
    const span = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === traceId);
    expect(span?.name).toBe('GET /api/v1/runs/:runId');
    expect(line).toMatchObject({
      requestId,
      traceId,
      spanId: span?.spanContext().spanId,
      route: '/api/v1/runs/:runId',
      runId,
      workspaceId: 'ws-wait-closed',
    });
  });
});
