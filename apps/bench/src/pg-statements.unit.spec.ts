import { breakdownPerRun, oneLine, statementsTable, sumWindows, type ServerCounters, type StatementCounters } from './pg-statements';

const counters = (
  queryid: string,
  query: string,
  calls: number,
  execMs: number,
  extra: Partial<StatementCounters> = {},
): StatementCounters => ({
  queryid,
  query,
  calls,
  execMs,
  planMs: 0,
  plans: 0,
  rows: calls,
  walBytes: 0,
  ...extra,
});

const server = (commits: number, walSyncs = 0): ServerCounters => ({ commits, rollbacks: 1, walSyncs, walBytes: 100, sessions: 3 });

describe("Postgres's statements per run (pg_stat_statements over the CPU-per-run windows)", () => {
  it("adds up the windows by statement, and the server's counters", () => {
    const summed = sumWindows([
      { statements: [counters('1', 'COMMIT', 100, 20, { walBytes: 1000 }), counters('2', 'SELECT 1', 10, 1)], server: server(100, 90) },
      { statements: [counters('1', 'COMMIT', 50, 10, { walBytes: 500, planMs: 0.5, plans: 3 })], server: server(50, 40) },
    ]);
    expect(summed.statements).toEqual([
      { queryid: '1', query: 'COMMIT', calls: 150, execMs: 30, planMs: 0.5, plans: 3, rows: 150, walBytes: 1500 },
      counters('2', 'SELECT 1', 10, 1),
    ]);
    expect(summed.server).toEqual({ commits: 150, rollbacks: 2, walSyncs: 130, walBytes: 200, sessions: 6 });
  });

  it('puts each statement on one line and cuts a long one', () => {
    expect(oneLine('SELECT a\n     FROM  t\n')).toBe('SELECT a FROM t');
    expect(oneLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it("ranks by execution plus planning time per run, sums the rest and the total, and leaves out the bench's own reads of the counters", () => {
    const b = breakdownPerRun(
      'at 100 runs/s',
      {
        statements: [
          counters('1', 'COMMIT', 200, 40, { walBytes: 20_000 }),
          counters('2', 'SELECT count(*) FROM runs', 20, 30, { planMs: 20, rows: 40 }),
          counters('3', 'BEGIN', 200, 2),
          counters('4', 'SELECT 1', 100, 1),
          counters('5', 'SELECT pg_stat_statements_reset()', 1, 100),
          counters('6', 'SELECT wal_sync FROM pg_stat_wal', 1, 100),
        ],
        server: server(250, 180),
      },
      100,
      2,
    );
    expect(b.top).toEqual([
      { query: 'SELECT count(*) FROM runs', callsPerRun: 0.2, msPerRun: 0.5, planMsPerRun: 0.2, rowsPerRun: 0.4, walBytesPerRun: 0 },
      { query: 'COMMIT', callsPerRun: 2, msPerRun: 0.4, planMsPerRun: 0, rowsPerRun: 2, walBytesPerRun: 200 },
    ]);
    expect(b.rest).toEqual({
      query: '2 other statements',
      callsPerRun: 3,
      msPerRun: 0.03,
      planMsPerRun: 0,
      rowsPerRun: 3,
      walBytesPerRun: 0,
    });
    expect(b.total).toMatchObject({ query: 'all 4 statements', callsPerRun: 5.2, msPerRun: 0.93 });
    expect(b.server).toEqual({ commits: 2.5, rollbacks: 0.01, walSyncs: 1.8, walBytes: 1, sessions: 0.03 });
  });

  it('writes one table row per statement, escaping what would break the table', () => {
    const window = { statements: [counters('1', 'SELECT a || b FROM `t`', 100, 10)], server: server(300, 200) };
    const lines = statementsTable(breakdownPerRun('at 100 runs/s', window, 100)).split('\n');
    expect(lines[0]).toContain('at 100 runs/s');
    expect(lines[0]).toContain('3 commits, 0.01 rollbacks, 2 WAL flushes (fsync), 1 WAL bytes, 0.03 sessions opened');
    expect(lines.slice(2)).toEqual([
      '| statement | calls per run | ms per run | of which planning | rows per run | WAL bytes per run |',
      '|---|---|---|---|---|---|',
      "| `SELECT a \\|\\| b FROM 't'` | 1 | 0.1 | 0 | 1 | 0 |",
      '| **0 other statements** | 0 | 0 | 0 | 0 | 0 |',
      '| **all 1 statements** | 1 | 0.1 | 0 | 1 | 0 |',
    ]);
  });
});
