import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { closeServer, trackConnections } from '@wrs/problem';
import { enableProcessMetrics } from '../metrics/process-metrics';
import type { DependencyCheck } from './dependency-check';

export interface OpsServerSettings {
  readonly service: string;
  /** The metrics port (`METRICS_PORT`); unset: no operator port. */
  readonly port?: number | undefined;
  readonly host: string;
  readonly checks: readonly DependencyCheck[];
  readonly draining: () => boolean;
  /**
   * Nest's logger is process-wide: the api and relay have set theirs already (leave this unset, or
   * it would replace theirs); a service without another Nest app passes its own, or false for none.
   */
  readonly nestLogger?: LoggerService | false;
}

export interface OpsServer {
  /** Where it listens, e.g. http://127.0.0.1:9464 (undefined when disabled). */
  readonly url?: string;
  close(): Promise<void>;
}

/** Starts the operator port (health and metrics) beside the service. Closed last, after the drain. */
export async function startOpsServer(settings: OpsServerSettings): Promise<OpsServer> {
  enableProcessMetrics(settings.service);
  if (settings.port === undefined) {
    return { close: () => Promise.resolve() };
  }
  // Loaded only when the port is on: the run-worker and gateway use Nest for nothing else.
  const { NestFactory } = require('@nestjs/core') as typeof import('@nestjs/core');
  const { OpsModule } = require('./ops-module') as typeof import('./ops-module');
  const app: INestApplication = await NestFactory.create(
    OpsModule.forRoot(settings),
    settings.nestLogger === undefined ? {} : { logger: settings.nestLogger },
  );
  const server = app.getHttpServer() as Server;
  trackConnections(server);
  await app.listen(settings.port, settings.host);
  return {
    url: await app.getUrl(),
    close: async () => {
      // A scraper's socket that sent nothing would hold Nest's close for good (closeServer); Nest then
      // runs its shutdown hooks, and its own close of the stopped server answers at once.
      try {
        await closeServer(server);
      } finally {
        await app.close();
      }
    },
  };
}
