import fc from 'fast-check';
import { decide, RunNotFoundError, type RunCommand } from './run.commands';
import type { Placement, RunEvent } from './run.events';
import type { MaybeRunState } from './run.state';
import { foldSequenced, type SequencedEvent } from './run.versions';

const NOW = '2026-11-25T08:00:00.000Z';
const placement: Placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };
const CREATE: RunCommand = {
  type: 'CreateRun',
  runId: 'r1',
  workspaceId: 'ws',
  workload: { image: 'busybox' },
  provider: 'auto',
  region: 'auto',
  idempotencyKey: 'k',
  now: NOW,
};

const created = decide(CREATE, null)[0]!;
const log = (index: number): RunEvent => ({ type: 'run.log', data: { index, stream: 'stdout', line: `l${index}`, at: NOW } });
const at = (seq: number, event: RunEvent): SequencedEvent => ({ seq, event });

describe("a run's versions (the state-version fold)", () => {
  it('names the last event in `version` and the last state change in `stateVersion`: log lines move only the first', () => {
    const events = [
      at(3, created),
      at(7, { type: 'run.dispatched', data: { placement, at: NOW } }),
      at(9, { type: 'run.started', data: { at: NOW } }),
      at(10, log(0)),
      at(12, log(1)),
    ];
    expect(foldSequenced(events)).toMatchObject({ version: 12, stateVersion: 9, state: { state: 'running', logLines: 2 } });
    const canceling = foldSequenced([...events, at(15, { type: 'run.cancel_requested', data: { requestedBy: 'u', at: NOW } })]);
    expect(canceling).toMatchObject({ version: 15, stateVersion: 15, state: { state: 'canceling' } });
  });

  it('is 0 and 0 for a run with no events', () => {
    expect(foldSequenced([])).toEqual({ state: null, version: 0, stateVersion: 0 });
  });

  // Runs as the decider writes them: each command decided on the state so far, events stored at
  // increasing, gapped sequences (other runs share the stream).
  const commandArb: fc.Arbitrary<RunCommand> = fc.oneof(
    fc.constant<RunCommand>({ type: 'DispatchRun', placement, now: NOW }),
    fc.constant<RunCommand>({ type: 'MarkRunStarted', now: NOW }),
    fc.integer({ min: 0, max: 8 }).map((fromIndex): RunCommand => ({
      type: 'RecordLogs',
      fromIndex,
      lines: [
        { stream: 'stdout', line: 'x' },
        { stream: 'stderr', line: 'y' },
      ],
      now: NOW,
    })),
    fc
      .integer({ min: 0, max: 8 })
      .map((fromIndex): RunCommand => ({ type: 'RecordLogs', fromIndex, lines: [{ stream: 'stdout', line: 'x' }], now: NOW })),
    fc.integer({ min: 0, max: 2 }).map((exitCode): RunCommand => ({ type: 'CompleteRun', exitCode, now: NOW })),
    fc.constant<RunCommand>({ type: 'FailRun', failure: { code: 'provider_lost', message: 'lost' }, now: NOW }),
    fc.constant<RunCommand>({ type: 'CancelRun', requestedBy: 'alice', now: NOW }),
    fc.constant<RunCommand>({ type: 'ConfirmRunCanceled', now: NOW }),
  );
  const historyArb = fc
    .tuple(fc.array(commandArb, { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 80, maxLength: 80 }))
    .map(([commands, gaps]) => {
      const events: SequencedEvent[] = [];
      let state: MaybeRunState = null;
      let seq = 0;
      for (const command of [CREATE, ...commands]) {
        let decided: RunEvent[] = [];
        try {
          decided = decide(command, state);
        } catch (error) {
          if (!(error instanceof RunNotFoundError)) {
            throw error;
          }
        }
        for (const event of decided) {
          seq += gaps[events.length % gaps.length]!;
          events.push(at(seq, event));
          state = foldSequenced([at(seq, event)], { state, version: 0, stateVersion: 0 }).state;
        }
      }
      return events;
    });
  const withoutLogCount = (state: MaybeRunState): unknown => (state ? { ...state, logLines: undefined } : null);

  it('an ETag read at any point still matches exactly while no state change has happened since (model)', () => {
    fc.assert(
      fc.property(historyArb, fc.nat(), fc.nat(), (events, a, b) => {
        const [i, j] = [a % (events.length + 1), b % (events.length + 1)].sort((x, y) => x - y) as [number, number];
        const read = foldSequenced(events.slice(0, i));
        const now = foldSequenced(events.slice(0, j));
        // The state a client saw, but for how many lines were logged, is what If-Match protects.
        const unchanged = JSON.stringify(withoutLogCount(read.state)) === JSON.stringify(withoutLogCount(now.state));
        expect(now.stateVersion === read.stateVersion).toBe(unchanged);
        expect(now.version).toBe(j === 0 ? 0 : events[j - 1]!.seq);
        expect(now.stateVersion).toBeLessThanOrEqual(now.version);
      }),
      { numRuns: 300 },
    );
  });

  it('folding on from a stored fold gives what one fold of every event gives (how the projection extends a row)', () => {
    fc.assert(
      fc.property(historyArb, fc.nat(), (events, cut) => {
        const k = cut % (events.length + 1);
        expect(foldSequenced(events.slice(k), foldSequenced(events.slice(0, k)))).toEqual(foldSequenced(events));
      }),
      { numRuns: 300 },
    );
  });
});
