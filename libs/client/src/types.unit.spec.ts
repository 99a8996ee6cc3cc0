import type { components } from '@wrs/contracts/types';
import type { Run, RunReset, SuccessBody, VersionInfo, Workspace } from './types';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Checked by the type checker (`npm run typecheck`): each client method's result is the body its
 * operation answers with in the contract. After `client:generate`, a changed answer schema fails here.
 */
const tiedToTheContract: Record<string, true> = {
  getRun: true satisfies Same<SuccessBody<'/runs/{runId}', 'get', 200>, Run>,
  cancelRun: true satisfies Same<SuccessBody<'/runs/{runId}:cancel', 'post', 202>, Run>,
  createRun: true satisfies Same<SuccessBody<'/runs', 'post', 201>, Run>,
  workspace: true satisfies Same<SuccessBody<'/workspaces/current', 'get', 200>, Workspace>,
  version: true satisfies Same<SuccessBody<'/version', 'get', 200>, VersionInfo>,
  noSuchAnswer: true satisfies Same<SuccessBody<'/runs', 'post', 200>, never>,
};

type Schemas = components['schemas'];

/** The contract's nullable references (oneOf [X, NullValue]) reach the client as `X | null`, nothing wider. */
const nullableAsTheServerSendsThem: Record<string, true> = {
  placement: true satisfies Same<Run['placement'], Schemas['Placement'] | null>,
  failure: true satisfies Same<Run['failure'], Schemas['Failure'] | null>,
  cancellation: true satisfies Same<Run['cancellation'], Schemas['Cancellation'] | null>,
  resetRun: true satisfies Same<RunReset['data']['run'], Run | null>,
};

describe('the client types', () => {
  it('are tied to the contract operations (a compile-time check)', () => {
    expect(Object.values(tiedToTheContract).every(Boolean)).toBe(true);
  });

  it('type nullable references as X | null (a compile-time check)', () => {
    expect(Object.values(nullableAsTheServerSendsThem).every(Boolean)).toBe(true);
  });
});
