import { resumePoints } from './resume-scenario';

describe('where the resume scenario resumes the run from', () => {
  it('leaves an event of the run after each point, however few events it has', () => {
    // Two events (BENCH_RESUME_EVENTS=2000): the middle was the last one, and its stream waited forever.
    expect(resumePoints([1, 1001])).toEqual({ start: 1, middle: 1, head: 1 });
    expect(resumePoints([1, 1001, 2001])).toEqual({ start: 1, middle: 1001, head: 1001 });
    for (let n = 2; n <= 50; n++) {
      const seqs = Array.from({ length: n }, (_, i) => 1 + i * 1000);
      const last = seqs.at(-1)!;
      expect(Object.values(resumePoints(seqs)).every((seq) => seq < last)).toBe(true);
    }
  });

  it('refuses a run of fewer than two events', () => {
    expect(() => resumePoints([7])).toThrow(/at least 2/);
  });
});
