import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { RunEvent } from '@wrs/domain';
import { connectNats, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { createLogger } from '@wrs/observability';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, readSse, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startTestRelay, type TestRelay } from './test-relay.testing';

/**
 * A client that closes its stream: the socket's close event fires outside the request's async context
 * (5056b3a stopped binding the request and response to it, 5-8 % of the api's CPU), yet what is logged
 * and ended there belongs to the request. The line's spanId comes only from the logger's mixin, so it
 * shows the line was written in the request's context, not just given its fields.
 */
describe('a relay stream closed by its client is logged and traced as its request', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-a');
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const lines: Record<string, unknown>[] = [];
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  let relay: TestRelay;
  let base: string;

  beforeAll(async () => {
    provider.register();
    env = await isolatedEnvironment();
    await migrate(env.database);
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    relay = await startTestRelay(env, publicKeyFile, {}, { logger: createLogger('stream-relay', 'info', output) });
    ({ base } = relay);
  });

  afterAll(async () => {
    await relay.close();
    await nc.close();
    await env.cleanup();
    await provider.shutdown();
  });

  it("the close's line carries the request id and the request's span; the span ends", async () => {
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'ws-a',
        workload: { image: 'busybox' },
        provider: 'auto',
        region: 'auto',
        idempotencyKey: 'k',
        at: '2026-11-25T12:00:00.000Z',
      },
    };
    await store.append('ws-a', runId, [created], 0, `c-${runId}`);
    const traceId = randomBytes(16).toString('hex');
    const requestId = `closed-${runId}`;
    // The client reads the first event, then closes the stream (readSse aborts once `until` holds).
    const stream = await readSse(
      `${base}/runs/${runId}/events`,
      { authorization: `Bearer ${token}`, 'x-request-id': requestId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      { until: (events) => events.length > 0 },
    );
    expect([stream.status, stream.events.length, stream.endedByServer]).toEqual([200, 1, false]);
    const line = await eventually(
      () => Promise.resolve(lines.find((l) => l['msg'] === 'request closed by the client' && l['requestId'] === requestId)),
      10_000,
      'the close logged',
    );
    const span = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === traceId);
    expect(span?.name).toBe('GET /api/v1/runs/:runId/events');
    expect(line).toMatchObject({
      requestId,
      traceId,
      spanId: span?.spanContext().spanId,
      route: '/api/v1/runs/:runId/events',
      runId,
      workspaceId: 'ws-a',
      status: 200,
    });
  });
});
