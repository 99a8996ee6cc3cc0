import type { FollowItem } from '../follow';
import type { RunEvent } from '../types';
import { EventsNow } from './events-now';

const at = '2026-11-26T00:00:00.000Z';
const event = (id: number, type: string, data: object = { at }): FollowItem => ({
  kind: 'event',
  id: String(id),
  event: { type, runId: 'r', workspaceId: 'ws', time: at, data } as unknown as RunEvent,
});
const log = (id: number, index: number): FollowItem => event(id, 'run.log', { index, stream: 'stdout', line: 'l', at });
const reset = (id: number, firstAvailableId: number | null): FollowItem => ({
  kind: 'reset',
  id: String(id),
  reset: { type: 'reset', runId: 'r', workspaceId: 'ws', time: at, data: { reason: 'events_removed', firstAvailableId, run: null } },
});

/** Which events `runs events` without --follow shows: the ones the run had when read, by its version and log lines. */
describe('the end of a run as read, in its event stream', () => {
  it('is past both its version and its last log line, whichever comes later', () => {
    const now = new EventsNow({ version: 3, logLines: 2 }, 0);
    expect([event(1, 'run.created'), event(3, 'run.started'), log(5, 0)].map((item) => now.see(item))).toEqual(['show', 'show', 'show']);
    expect(now.done).toBe(false);
    expect(now.see(log(6, 1))).toBe('show');
    expect(now.done).toBe(true);
  });

  it('stops at an event the run did not have: a log line past logLines, a state change past version', () => {
    expect(new EventsNow({ version: 3, logLines: 1 }, 0).see(log(8, 1))).toBe('newer');
    expect(new EventsNow({ version: 3, logLines: 1 }, 0).see(event(8, 'run.cancel_requested'))).toBe('newer');
  });

  it('reads the events --after covers without showing them, as they say where the log lines end', () => {
    const now = new EventsNow({ version: 7, logLines: 2 }, 7);
    expect([log(4, 0), log(5, 1), event(7, 'run.cancel_requested')].map((item) => now.see(item))).toEqual(['skip', 'skip', 'skip']);
    expect(now.done).toBe(true);
  });

  it('needs no stream with no log line and nothing after --after', () => {
    expect(new EventsNow({ version: 3, logLines: 0 }, 3).done).toBe(true);
    expect(new EventsNow({ version: 3, logLines: 0 }, 2).done).toBe(false);
    // A run with no event at all. GET never answers version 0 (a run not yet projected is folded from
    // its events in JetStream, run.created included): this only keeps wrs from waiting if one did.
    expect(new EventsNow({ version: 0, logLines: 0 }, 0).done).toBe(true);
  });

  it('events removed (retention): a reset shown unless --after covers it; with none held, the reset is the end', () => {
    const partly = new EventsNow({ version: 3, logLines: 2 }, 0);
    expect([reset(4, 5), log(5, 0), log(6, 1)].map((item) => partly.see(item))).toEqual(['show', 'show', 'show']);
    expect(partly.done).toBe(true);
    expect(new EventsNow({ version: 3, logLines: 2 }, 5).see(reset(4, 5))).toBe('skip');

    const gone = new EventsNow({ version: 3, logLines: 2 }, 0);
    expect(gone.see(reset(0, null))).toBe('show');
    expect(gone.done).toBe(true);
  });

  it('never shows an event of a type this client does not know, yet passes the version at it', () => {
    const now = new EventsNow({ version: 4, logLines: 0 }, 0);
    expect([event(3, 'run.started'), { kind: 'skipped', id: '4', type: 'run.progress' } as const].map((item) => now.see(item))).toEqual([
      'show',
      'skip',
    ]);
    expect(now.done).toBe(true);
    // Past the version it says nothing of the end: log lines the run had may follow.
    const later = new EventsNow({ version: 3, logLines: 1 }, 0);
    expect(later.see({ kind: 'skipped', id: '4', type: 'run.progress' })).toBe('skip');
    expect(later.done).toBe(false);
  });

  it('shows an event whose id is no number (a relay broke it) rather than dropping it', () => {
    expect(new EventsNow({ version: 3, logLines: 0 }, 1).see({ ...event(2, 'run.dispatched'), id: 'x' })).toBe('show');
  });
});
