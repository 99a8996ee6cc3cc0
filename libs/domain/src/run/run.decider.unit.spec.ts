import fc from 'fast-check';
import { given } from './decider.testing';
import { decide, RunNotFoundError, storableLine, type RunCommand } from './run.commands';
import type { Placement, RunEvent } from './run.events';
import { fold } from './run.state';

const T0 = '2026-11-21T10:00:00.000Z';
const T1 = '2026-11-21T10:00:01.000Z';
const T2 = '2026-11-21T10:00:02.000Z';
const T3 = '2026-11-21T10:00:03.000Z';

const workload = { image: 'busybox:1.36', args: ['echo', 'hi'] };
const placement: Placement = {
  provider: 'simulator',
  region: 'local-1',
  reason: 'as requested',
  candidates: [{ provider: 'simulator', region: 'local-1' }],
};

const create: RunCommand = {
  type: 'CreateRun',
  runId: 'r1',
  workspaceId: 'ws',
  workload,
  provider: 'auto',
  region: 'auto',
  idempotencyKey: 'k',
  now: T0,
};
const created: RunEvent = {
  type: 'run.created',
  data: { runId: 'r1', workspaceId: 'ws', workload, provider: 'auto', region: 'auto', idempotencyKey: 'k', at: T0 },
};
const dispatched: RunEvent = { type: 'run.dispatched', data: { placement, at: T1 } };
const started: RunEvent = { type: 'run.started', data: { at: T2 } };
const succeeded: RunEvent = { type: 'run.succeeded', data: { exitCode: 0, at: T3 } };
const cancelRequested: RunEvent = { type: 'run.cancel_requested', data: { requestedBy: 'alice', at: T2 } };
const canceledByAlice: RunEvent = { type: 'run.canceled', data: { requestedBy: 'alice', at: T3 } };
const failedExit3: RunEvent = {
  type: 'run.failed',
  data: {
    failure: { code: 'workload_exit_nonzero', message: 'the workload exited with code 3' },
    exitCode: 3,
    at: T3,
  },
};

describe('run decider', () => {
  describe('CreateRun', () => {
    it('creates a run that does not exist yet', () => given([]).when(create).then([created]));
    it('decides nothing when the run exists (a re-sent create)', () => given([created]).when(create).then([]));
    it('decides nothing for a finished run', () => given([created, dispatched, started, succeeded]).when(create).then([]));
  });

  describe('DispatchRun', () => {
    const dispatch: RunCommand = { type: 'DispatchRun', placement, now: T1 };
    it('dispatches a queued run', () => given([created]).when(dispatch).then([dispatched]));
    it('decides nothing once dispatched', () => given([created, dispatched]).when(dispatch).then([]));
    it('never dispatches a run canceled while queued', () =>
      given([created, { type: 'run.canceled', data: { requestedBy: 'alice', at: T1 } }])
        .when(dispatch)
        .then([]));
    it('refuses a run that does not exist', () => given([]).when(dispatch).thenThrows(RunNotFoundError));
  });

  describe('MarkRunStarted', () => {
    const start: RunCommand = { type: 'MarkRunStarted', now: T2 };
    it('starts a dispatched run', () => given([created, dispatched]).when(start).then([started]));
    it('decides nothing for a queued run', () => given([created]).when(start).then([]));
    it('decides nothing when already running', () => given([created, dispatched, started]).when(start).then([]));
  });

  describe('CompleteRun', () => {
    it('exit 0 succeeds', () =>
      given([created, dispatched, started]).when({ type: 'CompleteRun', exitCode: 0, now: T3 }).then([succeeded]));
    it('a non-zero exit fails with the code', () =>
      given([created, dispatched, started]).when({ type: 'CompleteRun', exitCode: 3, now: T3 }).then([failedExit3]));
    it('an exit seen while canceling changes nothing: the cancel step confirms the end (cancel wins)', () =>
      given([created, dispatched, started, cancelRequested]).when({ type: 'CompleteRun', exitCode: 0, now: T3 }).then([]));
    it('decides nothing once terminal', () =>
      given([created, dispatched, started, succeeded]).when({ type: 'CompleteRun', exitCode: 1, now: T3 }).then([]));
  });

  describe('FailRun', () => {
    const failure = { code: 'no_capacity', message: 'none' } as const;
    it('fails a queued run', () =>
      given([created])
        .when({ type: 'FailRun', failure, now: T1 })
        .then([{ type: 'run.failed', data: { failure, exitCode: null, at: T1 } }]));
    it('a failure seen while canceling changes nothing: only a confirmed stop ends it canceled', () =>
      given([created, dispatched, cancelRequested]).when({ type: 'FailRun', failure, now: T3 }).then([]));
    it('a cancel its provider never confirmed ends failed, not canceled', () => {
      const unconfirmed = { code: 'cancel_unconfirmed', message: 'still running' } as const;
      return given([created, dispatched, cancelRequested])
        .when({ type: 'FailRun', failure: unconfirmed, now: T3 })
        .then([{ type: 'run.failed', data: { failure: unconfirmed, exitCode: null, at: T3 } }]);
    });
  });

  describe('WaitRun', () => {
    const wait = (reason: 'no_capacity' | 'provider_unhealthy', now = T1): RunCommand => ({
      type: 'WaitRun',
      reason,
      message: 'all full',
      now,
    });
    const waiting = (reason: 'no_capacity' | 'provider_unhealthy', at = T1): RunEvent => ({
      type: 'run.waiting',
      data: { reason, message: 'all full', at },
    });
    it('says why a queued run waits, and since when', () => {
      given([created])
        .when(wait('no_capacity'))
        .then([waiting('no_capacity')]);
      expect(fold([created, waiting('no_capacity')])).toMatchObject({ state: 'queued', waiting: { reason: 'no_capacity', since: T1 } });
    });
    it('decides nothing while the reason stays the same; a new reason is a new event', () => {
      given([created, waiting('no_capacity')])
        .when(wait('no_capacity', T2))
        .then([]);
      given([created, waiting('no_capacity')])
        .when(wait('provider_unhealthy', T2))
        .then([waiting('provider_unhealthy', T2)]);
    });
    it('decides nothing once placed, and placing ends the wait', () => {
      given([created, dispatched]).when(wait('no_capacity')).then([]);
      expect(fold([created, waiting('no_capacity'), dispatched])?.waiting).toBeNull();
    });
  });

  describe('RefuseDispatch', () => {
    const refusal = { provider: 'simulator', region: 'local-1', code: 'provider_error', message: 'refused' } as const;
    const refuse: RunCommand = { type: 'RefuseDispatch', refusal, now: T2 };
    const refused: RunEvent = { type: 'run.dispatch_refused', data: { refusal, at: T2 } };
    it('queues a dispatched run again, remembering the refusal', () => {
      given([created, dispatched]).when(refuse).then([refused]);
      expect(fold([created, dispatched, refused])).toMatchObject({
        state: 'queued',
        placement: null,
        dispatchedAt: null,
        refusals: [refusal],
      });
    });
    it('decides nothing for a refusal of another placement', () =>
      given([created, dispatched])
        .when({ ...refuse, refusal: { ...refusal, region: 'elsewhere' } })
        .then([]));
    it('decides nothing once canceling (the cancel removes whatever is there)', () =>
      given([created, dispatched, cancelRequested]).when(refuse).then([]));
    it('decides nothing for a queued or running run', () => {
      given([created]).when(refuse).then([]);
      given([created, dispatched, started]).when(refuse).then([]);
    });
    it('a run queued again after a refusal is canceled outright', () =>
      given([created, dispatched, refused]).when({ type: 'CancelRun', requestedBy: 'alice', now: T3 }).then([canceledByAlice]));
  });

  describe('CancelRun', () => {
    const cancel: RunCommand = { type: 'CancelRun', requestedBy: 'alice', now: T2 };
    it('cancels a queued run outright (cancel before dispatch wins)', () =>
      given([created])
        .when(cancel)
        .then([{ type: 'run.canceled', data: { requestedBy: 'alice', at: T2 } }]));
    it('asks a dispatched run to stop', () => given([created, dispatched]).when(cancel).then([cancelRequested]));
    it('asks a running run to stop', () => given([created, dispatched, started]).when(cancel).then([cancelRequested]));
    it('is safe to repeat while canceling', () => given([created, dispatched, cancelRequested]).when(cancel).then([]));
    it('changes nothing for a finished run', () => given([created, dispatched, started, succeeded]).when(cancel).then([]));
    it('refuses a run that does not exist', () => given([]).when(cancel).thenThrows(RunNotFoundError));
  });

  describe('RecordLogs', () => {
    const logs = (fromIndex: number, ...lines: string[]): RunCommand => ({
      type: 'RecordLogs',
      fromIndex,
      lines: lines.map((line) => ({ stream: 'stdout' as const, line })),
      now: T2,
    });
    const log = (index: number, line: string): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line, at: T2 } });
    it('records new lines in order', () =>
      given([created, dispatched, started])
        .when(logs(0, 'a', 'b'))
        .then([log(0, 'a'), log(1, 'b')]));
    it('skips the lines the run already has (a re-sent batch)', () =>
      given([created, dispatched, started, log(0, 'a')])
        .when(logs(0, 'a', 'b'))
        .then([log(1, 'b')]));
    it('decides nothing once the run is finished', () => given([created, dispatched, started, succeeded]).when(logs(0, 'a')).then([]));
    it('keeps at most the line limit per run, each line at most the length limit', () => {
      const many = Array.from({ length: 1005 }, (_, i) => `line ${i}`);
      const decided = decide(logs(0, ...many), fold([created, dispatched, started]));
      expect(decided).toHaveLength(1000);
      const long = decide(logs(0, 'x'.repeat(10_000)), fold([created, dispatched, started]));
      expect((long[0]?.data as { line: string }).line).toHaveLength(4096);
    });
    it('makes every line storable: no NUL, no unpaired surrogate, a cut never splits a pair', () => {
      const utf16 = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 50 });
      fc.assert(
        fc.property(utf16, fc.boolean(), (text, long) => {
          const input = long ? 'x'.repeat(4095) + text : text;
          const line = storableLine(input);
          expect(line.length).toBeLessThanOrEqual(4096);
          expect(line).not.toContain('\u0000');
          expect(isWellFormed(line)).toBe(true);
          if (!long && isWellFormed(input) && !input.includes('\u0000')) {
            expect(line).toBe(input);
          }
        }),
        { numRuns: 2000 },
      );
      expect(storableLine('a\u0000b')).toBe('a\uFFFDb');
      expect(storableLine('x'.repeat(4095) + '😀')).toBe('x'.repeat(4095));
    });
    it('counts the lines in the state', () => {
      expect(fold([created, dispatched, started, log(0, 'a'), log(1, 'b')])?.logLines).toBe(2);
    });
  });

  describe('ConfirmRunCanceled', () => {
    const confirm: RunCommand = { type: 'ConfirmRunCanceled', now: T3 };
    it('ends a canceling run canceled, keeping who asked', () =>
      given([created, dispatched, cancelRequested]).when(confirm).then([canceledByAlice]));
    it('decides nothing for a run that is not canceling', () => given([created, dispatched]).when(confirm).then([]));
  });

  describe('state fold', () => {
    it('derives every field from the events alone', () => {
      expect(fold([created, dispatched, started, failedExit3])).toMatchObject({
        state: 'failed',
        placement,
        dispatchedAt: T1,
        startedAt: T2,
        finishedAt: T3,
        exitCode: 3,
        failure: { code: 'workload_exit_nonzero' },
      });
    });
    it('ignores a second creation event', () => {
      const other: RunEvent = { ...created, data: { ...created.data, idempotencyKey: 'other' } };
      expect(fold([created, other])?.idempotencyKey).toBe('k');
    });
    it('ignores events before the creation event', () => expect(fold([started])).toBeNull());
    it('records the cancellation request on canceled', () => {
      expect(fold([created, dispatched, cancelRequested, canceledByAlice])).toMatchObject({
        state: 'canceled',
        cancellation: { requestedBy: 'alice', requestedAt: T2 },
      });
    });
  });
});

/** String.prototype.isWellFormed (Node 20 has it; the ES2022 lib this project targets does not know it). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}
