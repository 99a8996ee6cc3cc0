import fc from 'fast-check';
import { decide, RunNotFoundError, type RunCommand } from './run.commands';
import { LOG_LIMITS, type Placement, type RunEvent } from './run.events';
import { fold, isTerminalState, type RunStateName } from './run.state';

/**
 * Model-based test of the decider as the run-worker uses it: two replicas receive the same command (a
 * redelivery), each decides on the view it read, and appends event by event with an expected version
 * (the JetStream `expect.lastSubjectSequence`), re-reading and deciding again on a conflict. The
 * scheduler interleaves the replicas' reads and appends in every order; the model applies each command
 * once, by a transition table written independently of the decider.
 */

interface Model {
  state: RunStateName | 'none';
  logLines: number;
}

interface Store {
  readonly events: RunEvent[];
}

const NOW = '2026-11-21T10:00:00.000Z';
const placement: Placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

function modelApply(m: Model, command: RunCommand): void {
  if (command.type === 'CreateRun') {
    if (m.state === 'none') {
      m.state = 'queued';
    }
    return;
  }
  if (m.state === 'none' || isTerminalState(m.state)) {
    return;
  }
  const s = m.state;
  switch (command.type) {
    case 'DispatchRun':
      m.state = s === 'queued' ? 'starting' : s;
      return;
    case 'RefuseDispatch':
      m.state = s === 'starting' ? 'queued' : s;
      return;
    case 'WaitRun':
      return;
    case 'MarkRunStarted':
      m.state = s === 'starting' ? 'running' : s;
      return;
    case 'RecordLogs':
      if (command.lines.length > 0) {
        m.logLines = Math.max(m.logLines, Math.min(LOG_LIMITS.maxLinesPerRun, command.fromIndex + command.lines.length));
      }
      return;
    case 'CompleteRun':
      m.state = s === 'canceling' ? s : command.exitCode === 0 ? 'succeeded' : 'failed';
      return;
    case 'FailRun':
      m.state = s === 'canceling' && command.failure.code !== 'cancel_unconfirmed' ? s : 'failed';
      return;
    case 'CancelRun':
      m.state = s === 'queued' ? 'canceled' : 'canceling';
      return;
    case 'ConfirmRunCanceled':
      m.state = s === 'canceling' ? 'canceled' : s;
      return;
  }
}

/** One replica handling one delivery of the command, as the worker does. */
async function deliver(store: Store, command: RunCommand, s: fc.Scheduler): Promise<void> {
  for (;;) {
    const view = store.events.slice();
    await s.schedule(Promise.resolve(), 'read');
    let decided: RunEvent[];
    try {
      decided = decide(command, fold(view));
    } catch (error) {
      if (error instanceof RunNotFoundError) {
        return;
      }
      throw error;
    }
    let expected = view.length;
    let conflict = false;
    for (const event of decided) {
      await s.schedule(Promise.resolve(), 'append');
      if (store.events.length !== expected) {
        conflict = true;
        break;
      }
      store.events.push(event);
      expected += 1;
    }
    if (!conflict) {
      return;
    }
  }
}

class Deliver implements fc.AsyncCommand<Model, Store> {
  constructor(
    readonly command: RunCommand,
    readonly replicas: number,
    readonly s: () => fc.Scheduler,
  ) {}

  check(m: Readonly<Model>): boolean {
    return this.command.type === 'CreateRun' || m.state !== 'none';
  }

  async run(m: Model, store: Store): Promise<void> {
    const scheduler = this.s();
    const delivered = Promise.all(Array.from({ length: this.replicas }, () => deliver(store, this.command, scheduler)));
    await scheduler.waitAll();
    await delivered;
    modelApply(m, this.command);
    const state = fold(store.events);
    expect(state?.state ?? 'none').toBe(m.state);
    expect(state?.logLines ?? 0).toBe(m.logLines);
    // One creation, at most one ending, nothing after it, and no log line recorded twice.
    expect(store.events.filter((e) => e.type === 'run.created')).toHaveLength(1);
    const terminalAt = store.events.findIndex((e) => ['run.succeeded', 'run.failed', 'run.canceled'].includes(e.type));
    if (terminalAt >= 0) {
      expect(terminalAt).toBe(store.events.length - 1);
    }
    const logIndexes = store.events.flatMap((e) => (e.type === 'run.log' ? [e.data.index] : []));
    expect(new Set(logIndexes).size).toBe(logIndexes.length);
    expect(store.events.filter((e) => e.type === 'run.cancel_requested').length).toBeLessThanOrEqual(1);
  }

  toString(): string {
    return `${this.command.type}${'exitCode' in this.command ? `(${this.command.exitCode})` : ''}${
      this.command.type === 'RecordLogs' ? `(${this.command.fromIndex}+${this.command.lines.length})` : ''
    } x${this.replicas}`;
  }
}

const commandArb: fc.Arbitrary<RunCommand> = fc.oneof(
  fc.constant<RunCommand>({
    type: 'CreateRun',
    runId: 'r1',
    workspaceId: 'ws',
    workload: { image: 'busybox' },
    provider: 'auto',
    region: 'auto',
    idempotencyKey: 'k',
    now: NOW,
  }),
  fc.constant<RunCommand>({ type: 'DispatchRun', placement, now: NOW }),
  fc.constant<RunCommand>({ type: 'MarkRunStarted', now: NOW }),
  fc
    .record({ fromIndex: fc.integer({ min: 0, max: 6 }), count: fc.integer({ min: 0, max: 3 }) })
    .map(({ fromIndex, count }): RunCommand => ({
      type: 'RecordLogs',
      fromIndex,
      lines: Array.from({ length: count }, (_, i) => ({ stream: 'stdout' as const, line: `line ${fromIndex + i}` })),
      now: NOW,
    })),
  fc.integer({ min: 0, max: 2 }).map((exitCode): RunCommand => ({ type: 'CompleteRun', exitCode, now: NOW })),
  fc.constant<RunCommand>({ type: 'FailRun', failure: { code: 'provider_lost', message: 'lost' }, now: NOW }),
  fc.constant<RunCommand>({ type: 'FailRun', failure: { code: 'cancel_unconfirmed', message: 'not confirmed' }, now: NOW }),
  fc.constantFrom<RunCommand>(
    { type: 'WaitRun', reason: 'no_capacity', message: 'full', now: NOW },
    { type: 'WaitRun', reason: 'provider_unhealthy', message: 'unhealthy', now: NOW },
  ),
  fc.constant<RunCommand>({
    type: 'RefuseDispatch',
    refusal: { provider: 'simulator', region: 'local-1', code: 'provider_error', message: 'refused' },
    now: NOW,
  }),
  fc.constant<RunCommand>({ type: 'CancelRun', requestedBy: 'alice', now: NOW }),
  fc.constant<RunCommand>({ type: 'ConfirmRunCanceled', now: NOW }),
);

describe('the decider under concurrent redelivery (model-based, every interleaving the scheduler picks)', () => {
  it('two replicas handling the same commands end where one delivery of each would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.commands(
          [
            fc
              .tuple(commandArb, fc.integer({ min: 1, max: 3 }))
              .map(([command, replicas]) => new Deliver(command, replicas, () => currentScheduler!)),
          ],
          { maxCommands: 25 },
        ),
        async (s, commands) => {
          currentScheduler = s;
          await fc.asyncModelRun(
            () => ({ model: { state: 'none', logLines: 0 } as Model, real: { events: [] } as Store }),
            [new Deliver(CREATE, 1, () => s), ...commands],
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

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
let currentScheduler: fc.Scheduler | undefined;
