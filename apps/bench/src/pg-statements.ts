import { Client } from 'pg';
import { round } from './stats';

/** One statement's counters from `pg_stat_statements` over a window (all databases and users). */
export interface StatementCounters {
  readonly queryid: string;
  readonly query: string;
  readonly calls: number;
  readonly execMs: number;
  readonly planMs: number;
  readonly plans: number;
  readonly rows: number;
  readonly walBytes: number;
}

/** A statement's cost per run over the measured runs. */
export interface StatementPerRun {
  readonly query: string;
  readonly callsPerRun: number;
  /** Execution plus planning, per run (wall time in the backend: a commit's includes its WAL flush). */
  readonly msPerRun: number;
  readonly planMsPerRun: number;
  readonly rowsPerRun: number;
  readonly walBytesPerRun: number;
}

/** The breakdown the results carry: the top statements, what the rest add up to, and every statement's total. */
export interface StatementBreakdown {
  readonly at: string;
  readonly runs: number;
  readonly top: readonly StatementPerRun[];
  readonly rest: StatementPerRun;
  readonly total: StatementPerRun;
  /** Per run: commits, rollbacks, WAL flushes (fsyncs), WAL bytes and sessions opened, server-wide. */
  readonly server: ServerCounters;
}

/** The statements the bench runs to reset and read the counters: never part of the measured work. */
const OWN = /pg_stat_(statements|database|wal)/i;

/** Server-wide counters over a window: transactions and WAL (the commits' flushes are in no statement's time). */
export interface ServerCounters {
  readonly commits: number;
  readonly rollbacks: number;
  readonly walSyncs: number;
  readonly walBytes: number;
  /** Connections opened: each is a backend forked, and its named statements prepared and planned anew. */
  readonly sessions: number;
}

/** What one window counted. */
export interface StatementWindow {
  readonly statements: readonly StatementCounters[];
  readonly server: ServerCounters;
}

/** The counters of several windows added up, statements by statement (the same text and id). */
export function sumWindows(windows: readonly StatementWindow[]): StatementWindow {
  const byId = new Map<string, StatementCounters>();
  for (const row of windows.flatMap((w) => w.statements)) {
    const key = `${row.queryid}\u0000${row.query}`;
    const seen = byId.get(key);
    byId.set(
      key,
      seen
        ? {
            ...seen,
            calls: seen.calls + row.calls,
            execMs: seen.execMs + row.execMs,
            planMs: seen.planMs + row.planMs,
            plans: seen.plans + row.plans,
            rows: seen.rows + row.rows,
            walBytes: seen.walBytes + row.walBytes,
          }
        : row,
    );
  }
  const server = (key: keyof ServerCounters): number => windows.reduce((sum, w) => sum + w.server[key], 0);
  return {
    statements: [...byId.values()],
    server: {
      commits: server('commits'),
      rollbacks: server('rollbacks'),
      walSyncs: server('walSyncs'),
      walBytes: server('walBytes'),
      sessions: server('sessions'),
    },
  };
}

/** A statement's text on one line, its whitespace collapsed, cut at `max` characters. */
export function oneLine(query: string, max = 160): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Each statement's cost per run over `runs` runs, the costliest `top` first (by execution plus
 * planning time), the others summed into `rest`, and the sum of all; the bench's own reads of the
 * statistics views are left out.
 */
export function breakdownPerRun(at: string, window: StatementWindow, runs: number, top = 15): StatementBreakdown {
  const perRun = (query: string, rows: readonly StatementCounters[]): StatementPerRun => ({
    query,
    callsPerRun: round(rows.reduce((s, r) => s + r.calls, 0) / runs, 3),
    msPerRun: round(rows.reduce((s, r) => s + r.execMs + r.planMs, 0) / runs, 4),
    planMsPerRun: round(rows.reduce((s, r) => s + r.planMs, 0) / runs, 4),
    rowsPerRun: round(rows.reduce((s, r) => s + r.rows, 0) / runs, 3),
    walBytesPerRun: Math.round(rows.reduce((s, r) => s + r.walBytes, 0) / runs),
  });
  const measured = window.statements.filter((c) => !OWN.test(c.query)).sort((a, b) => b.execMs + b.planMs - (a.execMs + a.planMs));
  const rest = measured.slice(top);
  return {
    at,
    runs,
    top: measured.slice(0, top).map((c) => perRun(oneLine(c.query), [c])),
    rest: perRun(`${rest.length} other statements`, rest),
    total: perRun(`all ${measured.length} statements`, measured),
    server: {
      commits: round(window.server.commits / runs, 3),
      rollbacks: round(window.server.rollbacks / runs, 3),
      walSyncs: round(window.server.walSyncs / runs, 3),
      walBytes: Math.round(window.server.walBytes / runs),
      sessions: round(window.server.sessions / runs, 4),
    },
  };
}

/** results.md's section on the breakdown: one row per statement, then the rest and the total. */
export function statementsTable(b: StatementBreakdown): string {
  const row = (s: StatementPerRun, bold = false): string => {
    const query = bold ? `**${s.query}**` : `\`${s.query.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
    return `| ${query} | ${s.callsPerRun} | ${s.msPerRun} | ${s.planMsPerRun} | ${s.rowsPerRun} | ${s.walBytesPerRun} |`;
  };
  return [
    `Postgres statements per run ${b.at} (\`pg_stat_statements\`, reset before each CPU-per-run window, summed over ${b.runs} runs; time is the backend's execution plus planning, wall time, so a busy box inflates it). Server-wide per run: ${b.server.commits} commits, ${b.server.rollbacks} rollbacks, ${b.server.walSyncs} WAL flushes (fsync), ${b.server.walBytes} WAL bytes, ${b.server.sessions} sessions opened; a commit's flush is in no statement's time.`,
    '',
    '| statement | calls per run | ms per run | of which planning | rows per run | WAL bytes per run |',
    '|---|---|---|---|---|---|',
    ...b.top.map((s) => row(s)),
    row(b.rest, true),
    row(b.total, true),
  ].join('\n');
}

/**
 * `pg_stat_statements` on a server that preloads it (the bench's private Postgres): undefined on one
 * that does not (a shared server), so the bench runs on without the breakdown.
 */
export class StatementStats {
  private serverAtReset: ServerCounters = { commits: 0, rollbacks: 0, walSyncs: 0, walBytes: 0, sessions: 0 };

  private constructor(private readonly client: Client) {}

  static async open(databaseUrl: string): Promise<StatementStats | undefined> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ libs: string }>(`SELECT current_setting('shared_preload_libraries') AS libs`);
    if (!rows[0]?.libs.split(',').some((lib) => lib.trim() === 'pg_stat_statements')) {
      await client.end();
      return undefined;
    }
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return new StatementStats(client);
  }

  async reset(): Promise<void> {
    await this.client.query('SELECT pg_stat_statements_reset()');
    this.serverAtReset = await this.serverCounters();
  }

  /** What was counted since the last reset. */
  async read(): Promise<StatementWindow> {
    const statements = await this.statements();
    // As backends report them (about a second late at most): the window's edges are approximate.
    const now = await this.serverCounters();
    const since = (key: keyof ServerCounters): number => now[key] - this.serverAtReset[key];
    return {
      statements,
      server: {
        commits: since('commits'),
        rollbacks: since('rollbacks'),
        walSyncs: since('walSyncs'),
        walBytes: since('walBytes'),
        sessions: since('sessions'),
      },
    };
  }

  private async serverCounters(): Promise<ServerCounters> {
    const { rows } = await this.client.query<{ commits: string; rollbacks: string; sessions: string; wal_sync: string; wal_bytes: string }>(
      `SELECT (SELECT sum(xact_commit) FROM pg_stat_database)::text AS commits, (SELECT sum(xact_rollback) FROM pg_stat_database)::text AS rollbacks,
              (SELECT sum(sessions) FROM pg_stat_database)::text AS sessions, wal_sync::text, wal_bytes::text FROM pg_stat_wal`,
    );
    const row = rows[0]!;
    return {
      commits: Number(row.commits),
      rollbacks: Number(row.rollbacks),
      walSyncs: Number(row.wal_sync),
      walBytes: Number(row.wal_bytes),
      sessions: Number(row.sessions),
    };
  }

  private async statements(): Promise<StatementCounters[]> {
    const { rows } = await this.client.query<{
      queryid: string;
      query: string;
      calls: string;
      exec_ms: number;
      plan_ms: number;
      plans: string;
      rows: string;
      wal_bytes: string;
    }>(
      `SELECT queryid::text AS queryid, query, calls, total_exec_time AS exec_ms, total_plan_time AS plan_ms, plans, rows, wal_bytes::text AS wal_bytes
         FROM pg_stat_statements`,
    );
    return rows.map((r) => ({
      queryid: r.queryid,
      query: r.query,
      calls: Number(r.calls),
      execMs: Number(r.exec_ms),
      planMs: Number(r.plan_ms),
      plans: Number(r.plans),
      rows: Number(r.rows),
      walBytes: Number(r.wal_bytes),
    }));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
