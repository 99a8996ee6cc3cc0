import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';

/**
 * The sampler `OTEL_TRACES_SAMPLER` names, with `ratio` (`OTEL_TRACES_SAMPLER_ARG`) for the
 * `traceidratio` ones. A `parentbased_` sampler follows the caller's decision when a request or
 * message carries trace context, and applies the rest only to traces that start here.
 */
export function samplerFor(name: string, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      throw new Error(`OTEL_TRACES_SAMPLER: unknown sampler ${name}`);
  }
}
