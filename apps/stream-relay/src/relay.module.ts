import { Module, type DynamicModule } from '@nestjs/common';
import { AUTHENTICATOR, type Authenticator } from '@wrs/auth';
import { edgeGuards } from '@wrs/edge';
import { EffectiveLimits } from '@wrs/limits';
import { RateLimiter } from '@wrs/messaging';
import { CredentialWatch } from './credential-watch';
import { RunEventStreams } from './feed/run-event-streams';
import { RELAY_OPTIONS, RunEventsController, type RelayOptions } from './run-events.controller';

export interface RelayModuleOptions {
  readonly streams: RunEventStreams;
  readonly limits: EffectiveLimits;
  readonly rateLimiter: RateLimiter;
  /** Requests with a failing credential per client address and minute (AUTH_FAILURES_PER_MINUTE). */
  readonly authFailuresPerMinute?: number;
  readonly authenticator: Authenticator;
  /** Ends open streams when their credential ends. */
  readonly credentialWatch: CredentialWatch;
  readonly relay: RelayOptions;
}

@Module({})
export class RelayModule {
  static forRoot(options: RelayModuleOptions): DynamicModule {
    return {
      module: RelayModule,
      controllers: [RunEventsController],
      providers: [
        { provide: RunEventStreams, useValue: options.streams },
        { provide: AUTHENTICATOR, useValue: options.authenticator },
        { provide: RELAY_OPTIONS, useValue: options.relay },
        { provide: CredentialWatch, useValue: options.credentialWatch },
        { provide: EffectiveLimits, useValue: options.limits },
        { provide: RateLimiter, useValue: options.rateLimiter },
        ...edgeGuards({ rateLimiter: options.rateLimiter, authFailuresPerMinute: options.authFailuresPerMinute }),
      ],
    };
  }
}
