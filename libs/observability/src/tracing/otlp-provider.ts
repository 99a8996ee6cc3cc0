import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BatchSpanProcessor, NodeTracerProvider, type Sampler } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/**
 * Registers a tracer provider that exports to an OTLP/HTTP collector (JSON, batched), recording the
 * traces `sampler` picks, with the AsyncLocalStorage context manager and the W3C trace-context
 * propagator. Loaded only when tracing is configured: the SDK is not even required otherwise.
 */
export function registerOtlpProvider(service: string, endpoint: string, sampler: Sampler): { shutdown(): Promise<void> } {
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }),
    sampler,
    // A short delay keeps traces timely; the batch still bounds the export cost under load.
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000, maxQueueSize: 4096 })],
  });
  provider.register({ contextManager: new AsyncLocalStorageContextManager() });
  return provider;
}
