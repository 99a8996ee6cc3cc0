import { isTerminalState, type RunState } from './run.state';

/** A run as the API returns it: the derived state, whether it is final, and its versions. */
export interface RunView extends RunState {
  readonly terminal: boolean;
  /** Sequence of the last event folded into this state (what an append expects); 0 before the first. */
  readonly version: number;
  /** Sequence of the last state-changing event folded in (not a log line): the run's `version` and ETag. */
  readonly stateVersion: number;
}

/** Without `stateVersion` the run is taken to have no log line after its last state change. */
export function toRunView(state: RunState, version: number, stateVersion = version): RunView {
  return { ...state, terminal: isTerminalState(state.state), version, stateVersion };
}
