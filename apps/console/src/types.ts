import type { RunState } from '@wrs/contracts/types';

/** The run states in the order the list's filter offers them (the contract's RunState). */
export const RUN_STATES = [
  'queued',
  'starting',
  'running',
  'canceling',
  'succeeded',
  'failed',
  'canceled',
] as const satisfies readonly RunState[];
