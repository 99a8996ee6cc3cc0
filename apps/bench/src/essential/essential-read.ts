import type { ServerResponse } from 'node:http';
import type { Pool } from 'pg';
import type { EssentialNames } from './essential-names';

/** The run's path: a UUID, as the api's route takes it. */
export const RUN_PATH = /^\/api\/v1\/runs\/([0-9a-f-]{36})$/;

/**
 * The essential program's read, `GET /api/v1/runs/{id}` after the token check: one query by primary key
 * (scoped to the token's workspace, as RunQueries.find) as a named statement on a pool, so it is planned
 * once per connection; the row as JSON with its version as ETag, or a 404.
 */
export function essentialRead(
  pool: Pool,
  names: EssentialNames,
): (res: ServerResponse, workspaceId: string, runId: string) => Promise<void> {
  const text = `SELECT state, version, created, updated_at FROM ${names.table} WHERE id = $1 AND workspace_id = $2`;
  return async (res, workspaceId, runId) => {
    const { rows } = await pool.query<{ state: string; version: string; created: Run | null; updated_at: Date }>({
      name: 'essential_read',
      text,
      values: [runId, workspaceId],
    });
    const row = rows[0];
    if (!row) {
      answer(res, 404, { type: 'not_found' });
      return;
    }
    const run = row.created ?? {};
    answer(
      res,
      200,
      {
        id: runId,
        workspaceId,
        state: row.state,
        workload: run.workload,
        provider: run.provider,
        region: run.region,
        createdAt: run.at,
        updatedAt: row.updated_at.toISOString(),
      },
      { etag: `"${row.version}"` },
    );
  };
}

/** What run.created carried (essential-api.ts), as the projection keeps it. */
interface Run {
  readonly workload?: object;
  readonly provider?: string;
  readonly region?: string;
  readonly at?: string;
}

/** A JSON answer with its length, as both of the essential api's routes give one. */
export function answer(res: ServerResponse, status: number, body: object, more: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...more });
  res.end(text);
}
