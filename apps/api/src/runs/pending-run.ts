import { decide, evolve, toRunView, type RunCommand, type RunView } from '@wrs/domain';

export type CreateRun = Extract<RunCommand, { type: 'CreateRun' }>;

/**
 * The run as its create answer shows it: the state its first event gives, at version 0. A function
 * of the accepted create alone, so a replay answers byte for byte what the first request did.
 */
export function pendingRun(command: CreateRun): RunView {
  const [created] = decide(command, null);
  const state = created ? evolve(null, created) : null;
  if (!state) {
    throw new Error('a create on no run always yields a state');
  }
  return toRunView(state, 0);
}
