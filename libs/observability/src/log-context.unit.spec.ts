import { currentLogContext, logContextFields, withLogContext } from './log-context';
import { startTracing } from './tracing/tracing';

describe('log context with tracing off', () => {
  beforeAll(() => startTracing({ service: 'test' }));

  it('follows async work (timers, promises) without recording any span or trace id', async () => {
    const seen = await withLogContext({ runId: 'r1' }, () =>
      withLogContext({ requestId: 'q1' }, () => new Promise((resolve) => setTimeout(() => resolve(logContextFields()), 1))),
    );
    expect(seen).toEqual({ runId: 'r1', requestId: 'q1' });
    expect(currentLogContext()).toEqual({});
  });
});
