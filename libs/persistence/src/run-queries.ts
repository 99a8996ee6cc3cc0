import { toRunView, type RunState, type RunView } from '@wrs/domain';
import type { DataSource } from 'typeorm';
import { STATE_VERSION_SQL } from './state-version-sql';
import type { RunListFilter, RunPage } from './run-list';

export class RunQueries {
  constructor(private readonly db: DataSource) {}

  /** The run if it belongs to the workspace; a foreign run is exactly as absent as a missing one. */
  async find(workspaceId: string, runId: string): Promise<RunView | null> {
    // A plain query: this is the hottest read of the service, and the ORM's per-call work dominates it.
    const rows: StoredRun[] = await this.db.query(
      `SELECT body, version, ${STATE_VERSION_SQL} FROM runs WHERE id = $1 AND workspace_id = $2`,
      [runId, workspaceId],
    );
    const row = rows[0];
    return row ? viewOf(row) : null;
  }

  /**
   * A page of the workspace's runs, newest first (ties by id, so the order is total and a keyset
   * cursor never skips or repeats a run), served by the (workspace_id, created_at DESC, id DESC) index.
   */
  async list(workspaceId: string, filter: RunListFilter): Promise<RunPage> {
    const params: unknown[] = [workspaceId];
    const where = ['workspace_id = $1'];
    const bind = (value: unknown): string => `$${params.push(value)}`;
    if (filter.after) {
      where.push(`(created_at, id) < (${bind(filter.after.createdAt)}::timestamptz, ${bind(filter.after.id)}::uuid)`);
    }
    if (filter.states) {
      where.push(`state = ANY(${bind(filter.states)}::text[])`);
    }
    if (filter.createdAfter) {
      where.push(`created_at >= ${bind(filter.createdAfter)}::timestamptz`);
    }
    if (filter.createdBefore) {
      where.push(`created_at < ${bind(filter.createdBefore)}::timestamptz`);
    }
    if (filter.idempotencyKey !== undefined) {
      where.push(`body->>'idempotencyKey' = ${bind(filter.idempotencyKey)}`);
    }
    if (filter.labels && filter.labels.length > 0) {
      const wanted = labelObject(filter.labels);
      // One containment of all the labels: the GIN index of migration 1763700000007 serves it, and the
      // planner estimates the labels together, so it walks the list's index instead when they are common.
      where.push(wanted ? `body->'workload'->'labels' @> ${bind(JSON.stringify(wanted))}::jsonb` : 'FALSE');
    }
    const rows: StoredRun[] = await this.db.query(
      `SELECT body, version, ${STATE_VERSION_SQL} FROM runs WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id DESC LIMIT ${bind(filter.limit + 1)}`,
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
    const rows: { provider: string; region: string; n: string }[] = await this.db.query(
      `SELECT body->'placement'->>'provider' AS provider, body->'placement'->>'region' AS region, count(*) AS n
         FROM runs WHERE NOT terminal AND body->'placement' IS NOT NULL AND body->'placement' <> 'null'::jsonb GROUP BY 1, 2`,
    );
    return new Map(rows.map((r) => [`${r.provider}/${r.region}`, Number(r.n)]));
  }

  /**
   * Runs not yet in a terminal state, least recently changed first: what the reconciler drives, every
   * sweep. Plain SQL on a partial index of unfinished runs by `updated_at`: a sweep reads its batch off
   * the index instead of sorting every unfinished run (measured: a worker draining thousands of queued
   * runs spent its database time here and in `placedCounts`).
   */
  async active(limit: number): Promise<RunView[]> {
    const rows: StoredRun[] = await this.db.query(
      `SELECT body, version, ${STATE_VERSION_SQL} FROM runs WHERE NOT terminal ORDER BY updated_at LIMIT $1`,
      [limit],
    );
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
    const rows: { id: string; terminal: boolean }[] = await this.db.query('SELECT id, terminal FROM runs WHERE id = ANY($1::uuid[])', [ids]);
    return new Map(rows.map((row) => [row.id, row.terminal]));
  }
}

interface StoredRun {
  readonly body: RunState;
  readonly version: string;
  readonly state_version: string;
}

/** The labels as one object, or null when a key is asked for with two values (no run has both). */
function labelObject(labels: readonly { readonly key: string; readonly value: string }[]): Record<string, string> | null {
  const wanted: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const { key, value } of labels) {
    if (key in wanted && wanted[key] !== value) {
      return null;
    }
    wanted[key] = value;
  }
  return wanted;
}

function viewOf(row: StoredRun): RunView {
  return toRunView(row.body, Number(row.version), Number(row.state_version));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
