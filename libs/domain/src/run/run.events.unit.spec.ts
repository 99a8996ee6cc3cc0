import type { RunEventKind } from '@wrs/contracts/kinds';
import { RUN_EVENT_TYPES, type RunEventType } from './run.events';

/** A domain event the contract does not list fails the type check (the other direction: RUN_EVENT_TYPES's own type). */
const everyEventTypeIsAContractKind: [RunEventType] extends [RunEventKind] ? true : never = true;

describe('run event kinds', () => {
  it('are the contract kinds, each once', () => {
    expect(everyEventTypeIsAContractKind).toBe(true);
    expect(new Set(RUN_EVENT_TYPES).size).toBe(RUN_EVENT_TYPES.length);
  });
});
