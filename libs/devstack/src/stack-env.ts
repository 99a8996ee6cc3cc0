import { IsOptional, IsString } from 'class-validator';
import { CommonEnv, IntBetween } from '@wrs/config';

/** What `npm start` reads: the common variables plus the ports of the local stack. */
export class StackEnv extends CommonEnv {
  @IntBetween(1, 65535)
  PORT = 8080;

  @IntBetween(0, 65535)
  API_PORT = 0;

  @IntBetween(0, 65535)
  RELAY_PORT = 0;

  /**
   * How long each service may take to say where it listens and answer (ms). Generous: on a loaded
   * machine the first start (cold caches, migrations) took 68 s.
   */
  @IntBetween(1000, 3_600_000)
  STACK_START_TIMEOUT_MS = 180_000;

  /** Where the development key pair lives (default: .local/keys in the repository). */
  @IsOptional()
  @IsString()
  DEV_KEYS_DIR?: string;
}
