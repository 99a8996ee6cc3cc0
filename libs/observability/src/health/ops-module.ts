import { Controller, Get, Header, Inject, Module, type DynamicModule } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, TerminusModule } from '@nestjs/terminus';
import { metricsRegistry } from '../metrics/catalogue';
import { probeWithin, type DependencyCheck } from './dependency-check';

export const OPS_OPTIONS = Symbol('OPS_OPTIONS');

export interface OpsOptions {
  readonly checks: readonly DependencyCheck[];
  /** True from SIGTERM on: readiness fails so Kubernetes stops routing here while in-flight work ends. */
  readonly draining: () => boolean;
}

/**
 * The operator's port: liveness, readiness and Prometheus metrics. It is not the public port, so the
 * ingress never exposes it and it needs no authentication; it keeps answering while the service drains.
 */
@Controller()
export class OpsController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(OPS_OPTIONS) private readonly options: OpsOptions,
  ) {}

  /** Alive while the event loop turns: no dependency is checked (a NATS outage must not restart pods). */
  @Get('health/live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.indicator.check('process').up({ uptimeSeconds: Math.round(process.uptime()) })]);
  }

  /** Ready when not draining and every required dependency answers; 503 with each one's status otherwise. */
  @Get('health/ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => (this.options.draining() ? this.indicator.check('lifecycle').down({ draining: true }) : this.indicator.check('lifecycle').up()),
      ...this.options.checks.map((check) => async () => {
        const session = this.indicator.check(check.name);
        try {
          await probeWithin(check);
          return session.up();
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return check.optional ? session.up({ reachable: false, message }) : session.down({ message });
        }
      }),
    ]);
  }

  @Get('metrics')
  @Header('Content-Type', metricsRegistry.contentType)
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}

@Module({})
export class OpsModule {
  static forRoot(options: OpsOptions): DynamicModule {
    return {
      module: OpsModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [OpsController],
      providers: [{ provide: OPS_OPTIONS, useValue: options }],
    };
  }
}
