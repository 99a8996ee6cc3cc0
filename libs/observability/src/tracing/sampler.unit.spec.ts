import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { samplerFor } from './sampler';

/** How many of `n` new traces (started here, or continuing `parentSampled` callers) a sampler records. */
function recorded(name: string, ratio: number, n: number, parentSampled?: boolean): number {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ sampler: samplerFor(name, ratio), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  for (let i = 0; i < n; i++) {
    const parent =
      parentSampled === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId: `${i.toString(16).padStart(8, '0')}${'a'.repeat(24)}`,
            spanId: 'b'.repeat(16),
            traceFlags: parentSampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          });
    tracer.startSpan('request', {}, parent).end();
  }
  return exporter.getFinishedSpans().length;
}

describe('trace sampling (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG)', () => {
  it('parentbased_traceidratio records about its share of the traces that start here', () => {
    expect(recorded('parentbased_traceidratio', 1, 200)).toBe(200);
    expect(recorded('parentbased_traceidratio', 0, 200)).toBe(0);
    const share = recorded('parentbased_traceidratio', 0.1, 2000) / 2000;
    expect(share).toBeGreaterThan(0.05);
    expect(share).toBeLessThan(0.15);
  });

  it("and follows a caller's decision, whatever the share", () => {
    expect(recorded('parentbased_traceidratio', 0, 50, true)).toBe(50);
    expect(recorded('parentbased_traceidratio', 1, 50, false)).toBe(0);
  });

  it('knows the other standard names and refuses an unknown one', () => {
    expect(recorded('always_on', 0, 10)).toBe(10);
    expect(recorded('always_off', 1, 10)).toBe(0);
    expect(recorded('traceidratio', 0, 10, true)).toBe(0);
    expect(recorded('parentbased_always_off', 1, 10, true)).toBe(10);
    expect(() => samplerFor('sometimes', 1)).toThrow(/unknown sampler/);
  });
});
