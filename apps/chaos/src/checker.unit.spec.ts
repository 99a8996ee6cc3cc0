import type { RunEvent, RunState } from '@wrs/domain';
import { fold, foldSequenced } from '@wrs/domain';
import { check, type Observed, type StoredRun } from './checker';
import type { FollowerRecord, LogicalCreate } from './workload';

const at = '2026-11-22T03:00:00.000Z';
const body = { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' };

function run(runId: string, key: string, seqs: number[]): StoredRun {
  const events: RunEvent[] = [
    {
      type: 'run.created',
      data: { runId, workspaceId: 'chaos', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: key, at },
    },
    { type: 'run.dispatched', data: { placement: { provider: 'simulator', region: 'local-1', reason: 'r', candidates: [] }, at } },
    { type: 'run.succeeded', data: { exitCode: 0, at } },
  ];
  let previous = 0;
  return {
    runId,
    workspaceId: 'chaos',
    events: events.map((event, i) => {
      const e = { seq: seqs[i]!, previous, event };
      previous = seqs[i]!;
      return e;
    }),
  };
}

function world(runs: StoredRun[]): Observed {
  return {
    runs: new Map(runs.map((r) => [r.runId, r])),
    rows: new Map(
      runs.map((r) => {
        const state = fold(r.events.map((e) => e.event)) as RunState;
        const { version, stateVersion } = foldSequenced(r.events);
        return [r.runId, { state: state.state, version, stateVersion, body: JSON.parse(JSON.stringify(state)) as RunState }];
      }),
    ),
    storedSeqs: new Map(runs.map((r) => [r.runId, r.events.map((e) => e.seq)])),
    projectionBacklog: 0,
    commandBacklog: 0,
  };
}

const follower = (runId: string, ids: number[]): FollowerRecord => ({
  runId,
  ids,
  types: [],
  connections: [undefined],
  problems: [],
  trace: [],
  done: true,
});
const create = (key: string, runIds: string[]): LogicalCreate => ({
  key,
  body,
  outcomes: runIds.map((runId) => ({ ok: true, runId, replayed: false, status: 201 })),
});
const failed = (verdicts: ReturnType<typeof check>): string[] => verdicts.filter((v) => !v.ok).map((v) => v.name);

describe('the chaos checker', () => {
  const a = run('a', 'k1', [1, 3, 7]);
  const b = run('b', 'k2', [2, 4, 5]);

  it('passes a history where every promise held', () => {
    expect(failed(check([create('k1', ['a', 'a']), create('k2', ['b'])], [follower('a', [1, 3, 7])], world([a, b])))).toEqual([]);
  });

  it('fails a follower that missed, repeated or reordered an event', () => {
    for (const ids of [
      [1, 7],
      [1, 3, 3, 7],
      [3, 1, 7],
    ]) {
      expect(failed(check([create('k1', ['a'])], [follower('a', ids)], world([a])))).toEqual([
        'every follower saw a gap-free, duplicate-free, ordered sequence to the end',
      ]);
    }
  });

  it('fails a key that produced two runs, and an acknowledged run that is not stored', () => {
    const twice = run('c', 'k1', [8, 9, 10]);
    expect(failed(check([create('k1', ['a', 'c'])], [], world([a, twice])))).toContain(
      'every logical request (Idempotency-Key) produced at most one run',
    );
    expect(failed(check([create('k1', ['a']), create('k9', ['lost'])], [], world([a])))).toContain(
      'every acknowledged create is exactly one run in JetStream and Postgres',
    );
  });

  it('fails a row that is not the fold of its events, and a run left unfinished', () => {
    const observed = world([a]);
    observed.rows.set('a', { ...observed.rows.get('a')!, version: 3 });
    expect(failed(check([create('k1', ['a'])], [], observed))).toEqual(['the Postgres row of every run equals the fold of its events']);
    const staleEtag = world([a]);
    staleEtag.rows.set('a', { ...staleEtag.rows.get('a')!, stateVersion: 1 });
    expect(failed(check([create('k1', ['a'])], [], staleEtag))).toEqual(['the Postgres row of every run equals the fold of its events']);
    const unfinished: StoredRun = { ...a, events: a.events.slice(0, 2) };
    expect(failed(check([create('k1', ['a'])], [], world([unfinished])))).toContain(
      'every run reached a terminal state within the bound after the faults stopped',
    );
  });
});
