import { toRunView, type RunState, type RunView } from '@wrs/domain';
import type { DataSource } from 'typeorm';
import { runNamed, type NamedStatement } from './named-statement';
import { STATE_VERSION_SQL } from './state-version-sql';
import type { RunListFilter, RunPage } from './run-list';

/** The worker's counts for placement (on every dispatch that finds no fresh count) and its sweep: named, planned once per connection. */
const PLACED_COUNTS: NamedStatement = {
  name: 'wrs_runs_placed_counts',
  text: `SELECT body->'placement'->>'provider' AS provider, body->'placement'->>'region' AS region, count(*) AS n
           FROM runs WHERE NOT terminal AND body->'placement' IS NOT NULL AND body->'placement' <> 'null'::jsonb GROUP BY 1, 2`,
};

/** A time as UTC ISO 8601 with microseconds: the exact bound of the next page, whatever the session's TimeZone and DateStyle. */
const EXACT_TIME = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * The first page of a pass of the walk over unfinished runs, least recently changed first, and when the
 * pass began: it reads only runs changed before that, so it ends even while runs keep changing (each
 * change moves a run's `updated_at` ahead; those are poked, and the next pass reads them). Served by the
 * partial index on `updated_at` (columns qualified: the output names must not be what is sorted).
 */
export const ACTIVE_FIRST: NamedStatement = {
  name: 'wrs_runs_active_first',
  text: `SELECT id, state, version, to_char(runs.updated_at AT TIME ZONE 'UTC', ${EXACT_TIME}) AS bound_at,
                to_char(statement_timestamp() AT TIME ZONE 'UTC', ${EXACT_TIME}) AS pass_began_at
           FROM runs WHERE NOT terminal AND runs.updated_at <= statement_timestamp()
          ORDER BY runs.updated_at, runs.id LIMIT $1`,
};

/** The next page of the pass after a keyset bound ($1, $2); `updated_at >= $1` is the index condition, the tie on id a filter. */
export const ACTIVE_AFTER: NamedStatement = {
  name: 'wrs_runs_active_after',
  text: `SELECT id, state, version, to_char(runs.updated_at AT TIME ZONE 'UTC', ${EXACT_TIME}) AS bound_at
           FROM runs
          WHERE NOT terminal AND runs.updated_at >= $1::timestamptz AND runs.updated_at <= $3::timestamptz
            AND (runs.updated_at > $1::timestamptz OR runs.id > $2::uuid)
          ORDER BY runs.updated_at, runs.id LIMIT $4`,
};

const UNFINISHED_BY_IDS: NamedStatement = {
  name: 'wrs_runs_unfinished_by_ids',
  text: `SELECT body, version, ${STATE_VERSION_SQL} FROM runs WHERE id = ANY($1::uuid[]) AND NOT terminal`,
};

/**
 * `GET /runs/{id}`, the hottest read of the service: named, so Postgres plans it once per connection, and
 * sent on the pool itself, without the query runner TypeORM makes and releases around each `query`.
 */
const RUN_BY_ID: NamedStatement = {
  name: 'wrs_runs_by_id',
  text: `SELECT body, version, ${STATE_VERSION_SQL} FROM runs WHERE id = $1 AND workspace_id = $2`,
};

export class RunQueries {
  constructor(private readonly db: DataSource) {}

  /** The run if it belongs to the workspace; a foreign run is exactly as absent as a missing one. */
  async find(workspaceId: string, runId: string): Promise<RunView | null> {
    const rows = await runNamed<StoredRun>(this.db, RUN_BY_ID, [runId, workspaceId]);
    const row = rows[0];
    return row ? viewOf(row) : null;
  }

  /**
   * A page of the workspace's runs, newest first (ties by id, so the order is total and a keyset
   * cursor never skips or repeats a run), served by the (workspace_id, created_at DESC, id DESC) index.
   * With labels, by the index of `run_labels` in the same order instead (see labelJoin).
   */
  async list(workspaceId: string, filter: RunListFilter): Promise<RunPage> {
    const params: unknown[] = [workspaceId];
    const bind = (value: unknown): string => `$${params.push(value)}`;
    if (filter.labels && askedTwice(filter.labels)) {
      return { items: [], more: false }; // no run has two values for one key
    }
    const labels = filter.labels && filter.labels.length > 0 ? labelJoin(filter.labels, bind) : null;
    // The keyset bound goes on the columns the walked index holds.
    const [at, id] = labels ? ['l0.created_at', 'l0.run_id'] : ['runs.created_at', 'runs.id'];
    const where = ['runs.workspace_id = $1', ...(labels ? ['l0.workspace_id = $1', ...labels.where] : [])];
    if (filter.after) {
      where.push(`(${at}, ${id}) < (${bind(filter.after.createdAt)}::timestamptz, ${bind(filter.after.id)}::uuid)`);
    }
    if (filter.states) {
      where.push(`runs.state = ANY(${bind(filter.states)}::text[])`);
    }
    if (filter.createdAfter) {
      where.push(`${at} >= ${bind(filter.createdAfter)}::timestamptz`);
    }
    if (filter.createdBefore) {
      where.push(`${at} < ${bind(filter.createdBefore)}::timestamptz`);
    }
    if (filter.idempotencyKey !== undefined) {
      where.push(`runs.body->>'idempotencyKey' = ${bind(filter.idempotencyKey)}`);
    }
    const rows: StoredRun[] = await this.db.query(
      `SELECT runs.body, runs.version, ${STATE_VERSION_SQL} FROM ${labels ? labels.from : 'runs'} WHERE ${where.join(' AND ')}
       ORDER BY ${at} DESC, ${id} DESC LIMIT ${bind(filter.limit + 1)}`,
      params,
    );
    const items = rows.slice(0, filter.limit).map(viewOf);
    return { items, more: rows.length > filter.limit };
  }

  /**
   * The workspace's unfinished runs, counted up to `atMost`: a quota check needs to know only whether
   * the limit is reached, and must not cost more as a workspace's backlog grows.
   */
  async countActive(workspaceId: string, atMost: number): Promise<number> {
    const rows: { n: string }[] = await this.db.query(
      `SELECT count(*) AS n FROM (SELECT 1 FROM runs WHERE workspace_id = $1 AND NOT terminal LIMIT $2) AS active`,
      [workspaceId, atMost],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Unfinished runs per placed provider and region, in one query: the load `auto` ranks by and what a
   * capacity limit counts. Keyed by `provider/region`.
   */
  async placedCounts(): Promise<Map<string, number>> {
    const rows = await runNamed<{ provider: string; region: string; n: string }>(this.db, PLACED_COUNTS);
    return new Map(rows.map((r) => [`${r.provider}/${r.region}`, Number(r.n)]));
  }

  /**
   * One page of the unfinished runs, least recently changed first, after `after` (null: a new pass from
   * the first): the reconciler walks them all, page by page, so no run waits behind a full page of older
   * ones. A pass reads the runs changed before it began, so it ends (`next` null) however busy the runs
   * are. Ids, states and versions only: most runs of a page are not due, and a body is read
   * (`unfinished`) only for those that are.
   */
  async activePage(after: ActiveRunsBound | null, limit: number): Promise<ActiveRunsPage> {
    const rows = after
      ? await runNamed<PagedRun>(this.db, ACTIVE_AFTER, [after.updatedAt, after.id, after.passBeganAt, limit])
      : await runNamed<PagedRun>(this.db, ACTIVE_FIRST, [limit]);
    const last = rows[rows.length - 1];
    const passBeganAt = after?.passBeganAt ?? rows[0]?.pass_began_at;
    return {
      runs: rows.map((row) => ({ runId: row.id, state: row.state, version: Number(row.version) })),
      next: rows.length === limit && last && passBeganAt ? { updatedAt: last.bound_at, id: last.id, passBeganAt } : null,
    };
  }

  /** Of these run ids, the runs still unfinished: what the reconciler reads for the runs a provider said changed. */
  async unfinished(runIds: readonly string[]): Promise<RunView[]> {
    const ids = runIds.filter((id) => UUID.test(id));
    if (ids.length === 0) {
      return [];
    }
    const rows = await runNamed<StoredRun>(this.db, UNFINISHED_BY_IDS, [ids]);
    return rows.map(viewOf);
  }

  /**
   * Of these run ids, those projected, each with whether it is terminal: what the cleanup of stray
   * workloads compares a provider's workloads with. An id that is not a UUID names no run.
   */
  async terminality(runIds: readonly string[]): Promise<Map<string, boolean>> {
    const ids = runIds.filter((id) => UUID.test(id));
    if (ids.length === 0) {
      return new Map();
    }
    const rows: { id: string; terminal: boolean }[] = await this.db.query('SELECT id, terminal FROM runs WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    return new Map(rows.map((row) => [row.id, row.terminal]));
  }
}

interface StoredRun {
  readonly body: RunState;
  readonly version: string;
  readonly state_version: string;
}

interface PagedRun {
  readonly id: string;
  readonly state: RunView['state'];
  readonly version: string;
  readonly bound_at: string;
  /** Only on a pass's first page. */
  readonly pass_began_at?: string;
}

/** An unfinished run as a page of the walk has it. */
export interface ActiveRunRef {
  readonly runId: string;
  readonly state: RunView['state'];
  readonly version: number;
}

/** Where the walk of unfinished runs goes on from: the last run of a page. */
export interface ActiveRunsBound {
  readonly updatedAt: string;
  readonly id: string;
  /** The pass reads runs changed up to then. */
  readonly passBeganAt: string;
}

export interface ActiveRunsPage {
  readonly runs: ActiveRunRef[];
  readonly next: ActiveRunsBound | null;
}

type Label = { readonly key: string; readonly value: string };

function askedTwice(labels: readonly Label[]): boolean {
  return labels.some((a) => labels.some((b) => a.key === b.key && a.value !== b.value));
}

/**
 * The runs that carry every label, through `run_labels` (one row per run and `key=value`, in list order),
 * so a first page reads about a page of index entries. Joined on run id alone: joining on creation time
 * too made the planner expect one row and read every entry.
 */
function labelJoin(labels: readonly Label[], bind: (value: unknown) => string): { from: string; where: string[] } {
  const wanted = [...new Set(labels.map(({ key, value }) => `${key}=${value}`))];
  const joins = wanted.slice(1).map((_, i) => `JOIN run_labels l${i + 1} ON l${i + 1}.run_id = l0.run_id`);
  return {
    from: ['run_labels l0', ...joins, 'JOIN runs ON runs.id = l0.run_id'].join(' '),
    // Each label's workspace too, so a rare label can be read by its primary key.
    where: wanted.flatMap((label, i) => [`l${i}.label = ${bind(label)}`, ...(i > 0 ? [`l${i}.workspace_id = $1`] : [])]),
  };
}

function viewOf(row: StoredRun): RunView {
  return toRunView(row.body, Number(row.version), Number(row.state_version));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
