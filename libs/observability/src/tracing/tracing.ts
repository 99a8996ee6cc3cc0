import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

export interface TracingSettings {
  readonly service: string;
  /** The collector's OTLP/HTTP base URL (`/v1/traces` is appended); unset: tracing is off. */
  readonly otlpEndpoint?: string | undefined;
  /** Which traces are recorded (`OTEL_TRACES_SAMPLER`'s names); `parentbased_traceidratio` when not given. */
  readonly sampler?: string | undefined;
  /** The share of traces a `traceidratio` sampler records (`OTEL_TRACES_SAMPLER_ARG`); 1 when not given. */
  readonly samplerRatio?: number | undefined;
}

export interface Tracing {
  /** Sends what is still buffered and stops; a no-op when tracing is off. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry for one process. With an endpoint: spans are recorded, W3C trace context is carried
 * across processes and exported in batches over OTLP/HTTP. Without one no tracer is registered (the
 * SDK is not even loaded): spans are the API's built-in no-op (nothing recorded, nothing exported, no
 * trace ids), which costs next to nothing; only the context manager is, so log context still follows
 * the work.
 */
export function startTracing(settings: TracingSettings): Tracing {
  if (!settings.otlpEndpoint) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    return { shutdown: () => Promise.resolve() };
  }
  // Required here, not imported at the top, so that a process without tracing never loads the SDK.
  const { registerOtlpProvider } = require('./otlp-provider') as typeof import('./otlp-provider');
  const { samplerFor } = require('./sampler') as typeof import('./sampler');
  return registerOtlpProvider(
    settings.service,
    settings.otlpEndpoint,
    samplerFor(settings.sampler ?? 'parentbased_traceidratio', settings.samplerRatio ?? 1),
  );
}

/** The tracer of our own spans. */
export function tracer(): Tracer {
  return trace.getTracer('workload-run-service');
}
