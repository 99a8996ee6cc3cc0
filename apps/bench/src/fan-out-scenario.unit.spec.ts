import { verdictOf } from './target';
import { idleMemoryFigure } from './fan-out-scenario';

describe('idleMemoryFigure', () => {
  it('judges the relay against the bare server at most 2x', () => {
    const figure = idleMemoryFigure(5000, 15.1, 9.8);
    expect(figure.ratio).toBe(1.54);
    expect(verdictOf(figure.target!, figure)).toBe('met');
    expect(verdictOf(idleMemoryFigure(5000, 26.4, 9.1).target!, idleMemoryFigure(5000, 26.4, 9.1))).toBe('missed');
  });

  it('a growth of zero or less on either side measures nothing: no ratio, missed, and it says so', () => {
    for (const [relay, bare] of [
      [-22.5, 22.4],
      [3.7, -1],
      [0, 8],
    ] as const) {
      const figure = idleMemoryFigure(1000, relay, bare);
      expect(figure.ratio).toBeUndefined();
      expect(verdictOf(figure.target!, figure)).toBe('missed');
      expect(figure.metric).toContain('nothing measured');
    }
  });
});
