import { cpuPerRunFigures, perRun, serviceCpuPerRun } from './cpu-per-run';

const measurement = (parts: Record<string, number>): Map<string, number> => new Map(Object.entries(parts));

describe('CPU per run: the median of three measurements, load generator excluded', () => {
  it("divides each part's CPU by the runs and leaves the load generator out of the service's total", () => {
    const byPart = perRun(measurement({ api: 300, postgres: 100, 'load generator': 150 }), 100);
    expect(byPart.get('api')).toBe(3);
    expect(serviceCpuPerRun(byPart)).toBe(4);
  });

  it("reports each measurement, judges their median against 5 ms and Postgres's median against 1 ms", () => {
    const figures = cpuPerRunFigures('at 100 runs/s', [
      measurement({ api: 3, postgres: 1.5, 'load generator': 9 }),
      measurement({ api: 2, postgres: 0.8, 'load generator': 9 }),
      measurement({ api: 9, postgres: 0.9, 'load generator': 9 }),
    ]);
    const byMetric = (start: string): { value: number; target?: unknown } | undefined => figures.find((f) => f.metric.startsWith(start));
    expect(figures.filter((f) => f.metric.includes('measurement ') && f.metric.includes(' of 3')).map((f) => f.value)).toEqual([
      4.5, 2.8, 9.9,
    ]);
    expect(byMetric('CPU per run at 100 runs/s, median of 3')).toMatchObject({ value: 4.5, target: { on: 'value', op: '<=', bound: 5 } });
    expect(byMetric('Postgres CPU per run at 100 runs/s, median of 3')).toMatchObject({ value: 0.9, target: { op: '<=', bound: 1 } });
    // The breakdown is the measurement whose total is the median one (the first), largest part first.
    expect(figures.filter((f) => f.metric.includes('nearest the median')).map((f) => [f.metric.split(': ')[1], f.value])).toEqual([
      ['load generator', 9],
      ['api', 3],
      ['postgres', 1.5],
    ]);
  });

  it("with the essential work's measurements: its median is the baseline of ours, and each part is set against its counterpart", () => {
    const figures = cpuPerRunFigures(
      'at 100 runs/s',
      [
        measurement({ api: 3, postgres: 1.5, 'load generator': 9 }),
        measurement({ api: 2, postgres: 0.8, 'load generator': 9 }),
        measurement({ api: 9, postgres: 0.9, 'load generator': 9 }),
      ],
      true,
      {
        what: 'the essential work',
        measurements: [
          measurement({ 'essential api': 1, postgres: 0.6, 'load generator': 5 }),
          measurement({ 'essential api': 0.5, postgres: 0.5, 'load generator': 5 }),
          measurement({ 'essential api': 1.5, postgres: 0.7, 'load generator': 5 }),
        ],
        counterparts: new Map([
          ['api', 'essential api'],
          ['postgres', 'postgres'],
        ]),
      },
    );
    const byMetric = (start: string): object | undefined => figures.find((f) => f.metric.startsWith(start));
    // Ours 4.5 (the median of 4.5, 2.8, 9.9) over the essential's 1.6 (of 1.6, 1.0, 2.2); the verdict is still on the value.
    expect(byMetric('CPU per run at 100 runs/s, median of 3')).toMatchObject({
      value: 4.5,
      baseline: { what: 'the essential work', value: 1.6 },
      ratio: 2.81,
      target: { on: 'value', op: '<=', bound: 5 },
    });
    expect(figures.filter((f) => f.metric.startsWith('essential work CPU per run at 100 runs/s, measurement')).map((f) => f.value)).toEqual(
      [1.6, 1, 2.2],
    );
    expect(figures.filter((f) => f.metric.includes('nearest its median')).map((f) => [f.metric.split(': ')[1], f.value])).toEqual([
      ['load generator', 5],
      ['essential api', 1],
      ['postgres', 0.6],
    ]);
    // Part by part, the two measurements nearest their medians: api 3 against 1, Postgres 1.5 against 0.6.
    expect(figures.filter((f) => f.metric.includes('by part')).map((f) => [f.metric.split(': ')[1], f.baseline?.value, f.ratio])).toEqual([
      ['api', 1, 3],
      ['postgres', 0.6, 2.5],
    ]);
    expect(byMetric('runs/s that')).toMatchObject({ unit: 'runs/s', baseline: { what: "at the essential work's" } });
  });
});
