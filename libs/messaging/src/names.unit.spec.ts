import { parseRunEventsSubject, parseRunSubject, StreamNames } from './names';

describe('run subjects parse back into their ids', () => {
  const names = new StreamNames('t1');

  it('events and commands name the workspace and run last', () => {
    expect(parseRunSubject(names.runEvents('ws-a', 'r1'))).toEqual({ workspaceId: 'ws-a', runId: 'r1' });
    expect(parseRunSubject(names.cancelCommand('ws-a', 'r1'))).toEqual({ workspaceId: 'ws-a', runId: 'r1' });
    expect(parseRunEventsSubject(names.runEvents('ws-a', 'r1'))).toEqual({ workspaceId: 'ws-a', runId: 'r1' });
  });

  it('a subject that names no run is not read as one', () => {
    expect(parseRunSubject(names.idempotencyClaim('ws-a', 'abc'))).toBeNull();
    expect(parseRunSubject(names.revokedToken('abc'))).toBeNull();
    expect(parseRunSubject('t1.evt.ws-a')).toBeNull();
    expect(parseRunEventsSubject(names.cancelCommand('ws-a', 'r1'))).toBeNull();
  });
});
