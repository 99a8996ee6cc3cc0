import { headers } from '@nats-io/nats-core';
import { context } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { REQUEST_ID_HEADER } from '@wrs/messaging';
import { injectTraceContext, inSpan, sseEventsSent } from '@wrs/observability';
import { deliverObserved } from './event-delivery';
import type { FeedEvent } from './feed/feed-event';
import { sseFrameOf } from './sse-frames';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(() => provider.shutdown());

async function eventDecidedInATrace(seq: number): Promise<FeedEvent> {
  const meta = headers();
  meta.set(REQUEST_ID_HEADER, 'req-1');
  await inSpan('publish run.event', {}, () => Promise.resolve(injectTraceContext(meta)));
  const envelope = { type: 'run.started', runId: 'r1', workspaceId: 'w1' } as FeedEvent['envelope'];
  return { seq, previous: seq - 1, envelope, json: '{"type":"run.started","data":{"é":1}}', headers: meta };
}

const sentOf = async (type: string): Promise<number> =>
  (await sseEventsSent.get()).values.find((v) => v.labels['type'] === type)?.value ?? 0;

describe('one event fanned out to many streams', () => {
  it('is framed once: the same bytes, exactly the SSE event, for every stream', async () => {
    const event = await eventDecidedInATrace(7);
    const frame = sseFrameOf(event);
    expect(sseFrameOf(event)).toBe(frame);
    expect(frame.toString('utf8')).toBe(`id: 7\nevent: run.started\ndata: ${event.json}\n\n`);
  });

  it('is counted per stream, traced once per relay, in the trace of what decided it', async () => {
    exporter.reset();
    const event = await eventDecidedInATrace(8);
    const before = await sentOf('run.started');
    const written: number[] = [];
    // The first stream traces it; the others write at once (a socket with room: no promise), or wait for a drain.
    await deliverObserved(event, () => Promise.resolve(void written.push(1)), context.active());
    expect(deliverObserved(event, () => void written.push(2), context.active())).toBeUndefined();
    await deliverObserved(event, () => Promise.resolve(void written.push(3)), context.active());
    expect(written).toEqual([1, 2, 3]);
    expect((await sentOf('run.started')) - before).toBe(3);
    const [publish, ...delivered] = exporter.getFinishedSpans();
    expect(delivered.map((s) => s.name)).toEqual(['deliver run.event']);
    expect(delivered[0]!.spanContext().traceId).toBe(publish!.spanContext().traceId);
    // Another event is traced again.
    await deliverObserved(await eventDecidedInATrace(9), () => Promise.resolve(), context.active());
    expect(exporter.getFinishedSpans().filter((s) => s.name === 'deliver run.event')).toHaveLength(2);
  });
});
