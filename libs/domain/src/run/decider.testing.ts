import { decide, type RunCommand } from './run.commands';
import type { RunEvent } from './run.events';
import { fold } from './run.state';

/** given(events).when(command).then(expected): a decider test with no I/O. */
export function given(events: readonly RunEvent[]) {
  return {
    when(command: RunCommand) {
      const run = (): RunEvent[] => decide(command, fold(events));
      return {
        then(expected: readonly RunEvent[]): void {
          expect(run()).toEqual(expected);
        },
        thenThrows(errorType: new (...args: never[]) => Error): void {
          expect(run).toThrow(errorType);
        },
      };
    },
  };
}
