import { isTerminalState, type RunState } from './run.state';

/** A run as the API returns it: the derived state, whether it is final, and its version. */
export interface RunView extends RunState {
  readonly terminal: boolean;
  /** Sequence of the last event folded into this state; 0 while only the create command exists. */
  readonly version: number;
}

export function toRunView(state: RunState, version: number): RunView {
  return { ...state, terminal: isTerminalState(state.state), version };
}
