import { decide, evolve, toRunView, type RunView } from '@wrs/domain';
import { createRunOf, type CreateRunCommandMessage } from '@wrs/messaging';

/**
 * The run as its create answer shows it: the state its first event gives, at version 0. A function
 * of the accepted create alone, so a replay answers byte for byte what the first request did.
 */
export function pendingRun(command: CreateRunCommandMessage): RunView {
  const [created] = decide(createRunOf(command), null);
  const state = created ? evolve(null, created) : null;
  if (!state) {
    throw new Error('a create on no run always yields a state');
  }
  return toRunView(state, 0);
}
