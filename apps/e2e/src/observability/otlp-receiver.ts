import { createServer, type Server } from 'node:http';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[];
  }[];
}

/**
 * A tiny OpenTelemetry collector for tests: a real HTTP server taking OTLP/HTTP JSON exports
 * (`POST /v1/traces`, what @opentelemetry/exporter-trace-otlp-http sends) and keeping their spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces') {
          this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') {
      throw new Error('receiver has no port');
    }
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private take(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({ service, name: span.name, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '' });
        }
      }
    }
  }
}
