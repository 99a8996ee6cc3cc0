import { resumePoints } from './resume-scenario';

describe('where the resume scenario resumes the run from', () => {
  it('three different places, each with an event of the run after it, however few events it has', () => {
    // With two events (BENCH_RESUME_EVENTS=2000) the middle was the last one, and its stream waited forever.
    expect(resumePoints([1, 1001, 2001, 3001])).toEqual({ start: 1, middle: 1001, head: 2001 });
    for (let n = 4; n <= 50; n++) {
      const seqs = Array.from({ length: n }, (_, i) => 1 + i * 1000);
      const { start, middle, head } = resumePoints(seqs);
      expect(start < middle && middle < head && head < seqs.at(-1)!).toBe(true);
    }
  });

  it('refuses a run of fewer than four events', () => {
    expect(() => resumePoints([1, 1001, 2001])).toThrow(/need 4/);
  });
});
