import type { DataSource } from 'typeorm';

export type WebhookEventKind = 'completed' | 'started' | 'logs';

/** What may be shown of an endpoint: never its secret, sealed or not. */
export interface WebhookSummary {
  readonly id: string;
  readonly url: string;
  readonly events: WebhookEventKind[];
  readonly createdAt: string;
  readonly secretRotatedAt: string;
}

export interface WebhookDeliverySummary {
  readonly id: string;
  readonly runId: string;
  readonly type: string;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly createdAt: string;
  readonly lastAttemptAt: string | null;
  readonly nextAttemptAt: string | null;
}

interface Row {
  id: string;
  url: string;
  events: WebhookEventKind[];
  created_at: Date;
  secret_rotated_at: Date;
}

interface DeliveryRow {
  id: string;
  run_id: string;
  type: string;
  status: WebhookDeliverySummary['status'];
  attempts: number;
  response_status: number | null;
  error: string | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
}

const SUMMARY = 'id, url, events, created_at, secret_rotated_at';

/** A rotated-out secret still signs deliveries this long, so a receiver can switch over. */
export const PREVIOUS_SECRET_GRACE_HOURS = 24;

/** A workspace's webhook endpoints; every statement names the workspace (another's endpoint is none). */
export class Webhooks {
  constructor(private readonly db: DataSource) {}

  /**
   * Adds the endpoint unless the workspace already has `max`: then null. Creates in one workspace take
   * turns on a transaction-scoped advisory lock: otherwise each counts before the others commit, and
   * all of them pass the limit.
   */
  async add(
    record: { id: string; workspaceId: string; url: string; events: WebhookEventKind[]; sealed: unknown },
    max = Number.MAX_SAFE_INTEGER,
  ): Promise<WebhookSummary | null> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('wrs.webhooks/' || $1, 0))`, [record.workspaceId]);
      const rows: Row[] = await m.query(
        `INSERT INTO webhooks (id, workspace_id, url, events, sealed)
         SELECT $1, $2, $3, $4, $5 WHERE (SELECT count(*) FROM webhooks WHERE workspace_id = $2) < $6
         RETURNING ${SUMMARY}`,
        [record.id, record.workspaceId, record.url, record.events, JSON.stringify(record.sealed), max],
      );
      return rows[0] ? summary(rows[0]) : null;
    });
  }

  async list(workspaceId: string): Promise<WebhookSummary[]> {
    const rows: Row[] = await this.db.query(`SELECT ${SUMMARY} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id`, [
      workspaceId,
    ]);
    return rows.map(summary);
  }

  async get(workspaceId: string, id: string): Promise<WebhookSummary | null> {
    const rows: Row[] = await this.db.query(`SELECT ${SUMMARY} FROM webhooks WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
    return rows[0] ? summary(rows[0]) : null;
  }

  /**
   * Deletes the endpoint; false when the workspace has no such endpoint. Its deliveries go with it
   * except those a sender holds for an attempt in flight: waiting for those would hold a pooled
   * connection for up to a whole attempt. The worker's retention job removes them later, and no
   * sender claims a delivery whose endpoint is gone.
   */
  async remove(workspaceId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const [, affected] = (await m.query('DELETE FROM webhooks WHERE workspace_id = $1 AND id = $2', [workspaceId, id])) as [
        unknown,
        number,
      ];
      if (affected === 0) {
        return false;
      }
      await m.query(
        `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 FOR UPDATE SKIP LOCKED)`,
        [id],
      );
      return true;
    });
  }

  /** Puts a new sealed secret in place; the current one keeps signing for the grace period. */
  async rotate(workspaceId: string, id: string, sealed: unknown): Promise<WebhookSummary | null> {
    const [rows] = (await this.db.query(
      `UPDATE webhooks SET previous_sealed = sealed, previous_until = now() + make_interval(hours => ${PREVIOUS_SECRET_GRACE_HOURS}),
              sealed = $3, secret_rotated_at = clock_timestamp()
        WHERE workspace_id = $1 AND id = $2 RETURNING ${SUMMARY}`,
      [workspaceId, id, JSON.stringify(sealed)],
    )) as [Row[], number];
    return rows[0] ? summary(rows[0]) : null;
  }

  /** The endpoint's latest deliveries, newest first; null when the workspace has no such endpoint. */
  async deliveries(workspaceId: string, id: string, limit = 100): Promise<WebhookDeliverySummary[] | null> {
    if (!(await this.get(workspaceId, id))) {
      return null;
    }
    const rows: DeliveryRow[] = await this.db.query(
      `SELECT id, run_id, type, status, attempts, response_status, error, created_at, last_attempt_at, next_attempt_at
         FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [id, limit],
    );
    return rows.map(deliverySummary);
  }
}

function summary(row: Row): WebhookSummary {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    createdAt: row.created_at.toISOString(),
    secretRotatedAt: row.secret_rotated_at.toISOString(),
  };
}

function deliverySummary(row: DeliveryRow): WebhookDeliverySummary {
  return {
    id: row.id,
    runId: row.run_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
  };
}
