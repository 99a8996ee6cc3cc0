import { Writable } from 'node:stream';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { headers } from '@nats-io/nats-core';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createLogger } from '../logger';
import { logContextFields, withLogContext } from '../log-context';
import { extractTraceContext, injectTraceContext } from './message-context';
import { inSpan, SpanKind } from './spans';

/** The JSON lines a logger writes. */
function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('trace context through message headers, and the ids in log lines', () => {
  it('with tracing off, nothing is injected and lines carry no trace id', async () => {
    const meta = headers();
    await inSpan('publish', { kind: SpanKind.PRODUCER }, () => {
      injectTraceContext(meta);
      return Promise.resolve();
    });
    expect(meta.keys()).toEqual([]);
    expect(logContextFields()).toEqual({});
  });

  describe('with a tracer provider (in-memory exporter)', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

    beforeAll(() => provider.register());
    afterAll(() => provider.shutdown());

    it('a consumer span continues the producer span of the message it handles', async () => {
      const meta = headers();
      await inSpan('publish run.command.create', { kind: SpanKind.PRODUCER }, () => {
        injectTraceContext(meta);
        return Promise.resolve();
      });
      expect(meta.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await inSpan('handle commands', { kind: SpanKind.CONSUMER, parent: extractTraceContext(meta) }, () => Promise.resolve());
      const [producer, consumer] = exporter.getFinishedSpans();
      expect(consumer!.spanContext().traceId).toBe(producer!.spanContext().traceId);
      expect(consumer!.parentSpanContext?.spanId).toBe(producer!.spanContext().spanId);
    });

    it('a message without trace context starts a new trace', () => {
      expect(trace.getSpanContext(extractTraceContext(headers()))).toBeUndefined();
      expect(extractTraceContext(undefined)).toBe(ROOT_CONTEXT);
    });

    it('every line logged inside the work carries its run, workspace, request and trace ids', async () => {
      const { lines, stream } = capture();
      const logger = createLogger('test', 'info', stream);
      const write = (msg: string): void => logger.info(msg);
      let traceId = '';
      await withLogContext({ runId: 'r1', workspaceId: 'w1', requestId: 'q1' }, () =>
        inSpan('handle projection', {}, (span) => {
          traceId = span.spanContext().traceId;
          // Also in a callback started by the work (a timer), as the reconciler's poke is.
          return new Promise<void>((resolve) => setTimeout(() => resolve(write('inside')), 1));
        }),
      );
      write('outside');
      expect(lines[0]).toMatchObject({ msg: 'inside', runId: 'r1', workspaceId: 'w1', requestId: 'q1', traceId });
      expect(lines[1]).toMatchObject({ msg: 'outside', service: 'test' });
      expect(Object.keys(lines[1]!)).not.toEqual(expect.arrayContaining(['runId']));
      expect(lines[1]!['traceId']).toBeUndefined();
      expect(context.active()).toBe(ROOT_CONTEXT);
    });
  });
});
