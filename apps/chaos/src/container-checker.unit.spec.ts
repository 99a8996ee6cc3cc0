import type { RunEvent } from '@wrs/domain';
import type { EngineEvent } from '@wrs/testing';
import type { Observed, StoredRun } from './checker';
import { checkContainers } from './container-checker';
import type { InjectedFault } from './nemesis';

const T = Date.parse('2026-11-25T08:00:00.000Z');
const iso = (ms: number): string => new Date(T + ms).toISOString();
const placement = { provider: 'container', region: 'local', reason: 'r', candidates: [] };

/** A run's events at the given ms after T: dispatched, then canceled (or succeeded). */
function run(runId: string, dispatchedAt: number | undefined, end: { type: 'run.canceled' | 'run.succeeded'; at: number }): StoredRun {
  const events: RunEvent[] = [
    {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'chaos',
        workload: { image: 'i' },
        provider: 'container',
        region: 'local',
        idempotencyKey: runId,
        at: iso(0),
      },
    },
    ...(dispatchedAt === undefined ? [] : [{ type: 'run.dispatched' as const, data: { placement, at: iso(dispatchedAt) } }]),
    end.type === 'run.canceled'
      ? { type: 'run.canceled', data: { requestedBy: 'chaos', at: iso(end.at) } }
      : { type: 'run.succeeded', data: { exitCode: 0, at: iso(end.at) } },
  ];
  return { runId, workspaceId: 'chaos', events: events.map((event, i) => ({ seq: i + 1, previous: i, event })) };
}

const world = (runs: StoredRun[]): Observed => ({
  runs: new Map(runs.map((r) => [r.runId, r])),
  rows: new Map(),
  storedSeqs: new Map(),
  projectionBacklog: 0,
  commandBacklog: 0,
});
const ev = (runId: string, action: string, ms: number): EngineEvent => ({ action, runId, containerId: `c-${runId}`, atMs: T + ms });
const failed = (verdicts: ReturnType<typeof checkContainers>) => verdicts.filter((v) => !v.ok).map((v) => v.name);

describe('the containers profile checker', () => {
  it('passes a run whose container was made after its dispatch and had died before its cancel was recorded', () => {
    const observed = world([run('a', 10, { type: 'run.canceled', at: 500 })]);
    const events = [ev('a', 'create', 20), ev('a', 'start', 30), ev('a', 'die', 400), ev('a', 'remove', 600)];
    expect(failed(checkContainers(observed, { events, left: [] }, []))).toEqual([]);
  });

  it('names each broken promise: left over, made twice, made before the dispatch, canceled while running, a failpoint not reached', () => {
    const observed = world([run('a', undefined, { type: 'run.canceled', at: 100 }), run('b', 50, { type: 'run.succeeded', at: 900 })]);
    const events = [
      ev('a', 'create', 20),
      ev('a', 'start', 30),
      ev('a', 'die', 2000),
      ev('b', 'create', 40),
      ev('b', 'remove', 60),
      ev('b', 'create', 70),
    ];
    const notReached: InjectedFault = {
      at: 2,
      fault: { kind: 'failpoint', target: 'run-worker', sibling: 'run-worker-2', name: 'worker.before-submit', downMs: 1 },
      startedAt: iso(0),
      endedAt: iso(1),
      tookMs: 1,
      error: 'run-worker did not reach failpoint worker.before-submit within 30000 ms',
    };
    expect(failed(checkContainers(observed, { events, left: [{ id: 'c-b', runId: 'b', state: 'exited' }] }, [notReached]))).toEqual([
      'no container is left on the engine once every run ended (none orphaned)',
      'no workload was created or started twice',
      'every container was created after its run recorded its dispatch (intent before effect)',
      'a run is canceled only once its container had stopped',
      'the worker reached every armed failpoint (the crash sites around submit and cancel exist)',
    ]);
  });

  it('takes a removal as the container stopped (a forced removal may record no death)', () => {
    const observed = world([run('a', 10, { type: 'run.canceled', at: 500 })]);
    const events = [ev('a', 'create', 20), ev('a', 'start', 30), ev('a', 'remove', 499)];
    expect(failed(checkContainers(observed, { events, left: [] }, []))).toEqual([]);
  });

  it('counts a container started after its run was canceled as not stopped', () => {
    const observed = world([run('a', 10, { type: 'run.canceled', at: 100 })]);
    const verdicts = checkContainers(
      observed,
      { events: [ev('a', 'create', 20), ev('a', 'start', 150), ev('a', 'die', 160)], left: [] },
      [],
    );
    expect(verdicts.find((v) => !v.ok)?.violations).toEqual([`a: canceled at ${iso(100)}, its container started after that`]);
  });
});
