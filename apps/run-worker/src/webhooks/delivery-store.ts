import { runNamed, type NamedStatement } from '@wrs/persistence';
import type { DataSource, QueryRunner } from 'typeorm';

/** A delivery in hand: its row is locked until `settle` or `release`, so no other sender takes it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly workspaceId: string;
  readonly runId: string;
  readonly url: string;
  readonly body: string;
  readonly attempts: number;
  readonly sealed: unknown;
  /** The rotated-out secret while it still signs, else null. */
  readonly previousSealed: unknown;
}

export type Settlement =
  | { readonly status: 'delivered'; readonly responseStatus: number }
  | { readonly status: 'pending'; readonly responseStatus: number | null; readonly error: string; readonly retryInMs: number }
  | { readonly status: 'failed'; readonly responseStatus: number | null; readonly error: string };

interface Row {
  id: string;
  webhook_id: string;
  workspace_id: string;
  run_id: string;
  url: string;
  payload: unknown;
  attempts: number;
  sealed: unknown;
  previous_sealed: unknown;
}

/**
 * Whether any delivery is due: one named statement outside a transaction, so an idle sender's look
 * costs one index probe instead of a transaction around a join Postgres planned again each time
 * (0.35 ms of planning a look, six looks a second with the default senders).
 */
const ANY_DUE: NamedStatement = {
  name: 'wrs_webhooks_any_due',
  text: `SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now() LIMIT 1`,
};

/** The due head of an (endpoint, run) queue whose endpoint still exists. */
const DUE_HEAD = `d.status = 'pending' AND d.next_attempt_at <= now()
  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                   WHERE e.webhook_id = d.webhook_id AND e.run_id = d.run_id AND e.status = 'pending' AND e.seq < d.seq)`;

/** Another sender may take the marked delivery before this one locks it: then it looks again, this often. */
const CLAIM_TRIES = 3;

/**
 * Takes the due head of each (endpoint, run) queue with SKIP LOCKED, so senders never wait on each other
 * and a run's deliveries to an endpoint stay in order. A sender that dies releases its lock with its
 * connection, and the delivery is tried again with the same id.
 */
export class DeliveryStore {
  constructor(private readonly db: DataSource) {}

  async claim(): Promise<{ delivery: ClaimedDelivery; settle(s: Settlement): Promise<void> } | null> {
    // A delivery that falls due just after this look waits for the next one (the sender's idle wait, or
    // a poke from the intake), as it would after a claim that found nothing.
    if ((await runNamed(this.db, ANY_DUE)).length === 0) {
      return null;
    }
    for (let tries = 0; tries < CLAIM_TRIES; tries++) {
      const id = await this.mark();
      if (id === null) {
        return null;
      }
      const claimed = await this.lock(id);
      if (claimed) {
        return claimed;
      }
    }
    return null;
  }

  /**
   * Picks a due delivery and records, committed before any attempt, that a sender took it: no log line
   * joins it afterwards, even if the attempt is made and its outcome never recorded (the body is fixed
   * once a receiver may have it). Written on the first claim only.
   */
  private async mark(): Promise<string | null> {
    const rows: { id: string }[] = await this.db.query(
      `WITH head AS (
         SELECT d.id, d.claimed_at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE ${DUE_HEAD}
          ORDER BY d.next_attempt_at, d.seq LIMIT 1
          FOR UPDATE OF d SKIP LOCKED
       ), marked AS (
         UPDATE webhook_deliveries SET claimed_at = now() WHERE id IN (SELECT id FROM head WHERE claimed_at IS NULL)
       )
       SELECT id FROM head`,
    );
    return rows[0]?.id ?? null;
  }

  /** Locks the marked delivery for the attempt, if it is still due and no other sender has it. */
  private async lock(id: string): Promise<{ delivery: ClaimedDelivery; settle(s: Settlement): Promise<void> } | null> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const rows: Row[] = await runner.query(
        `SELECT d.id, d.webhook_id, d.workspace_id, d.run_id, d.payload, d.attempts, w.url, w.sealed,
                CASE WHEN w.previous_until > now() THEN w.previous_sealed END AS previous_sealed
           FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.id = $1 AND ${DUE_HEAD}
          FOR UPDATE OF d SKIP LOCKED`,
        [id],
      );
      const row = rows[0];
      if (!row) {
        await end(runner, 'rollback');
        return null;
      }
      return { delivery: claimed(row), settle: (s) => settle(runner, row.id, s) };
    } catch (error) {
      await end(runner, 'rollback');
      throw error;
    }
  }
}

async function settle(runner: QueryRunner, id: string, s: Settlement): Promise<void> {
  try {
    await runner.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = now(), status = $2, response_status = $3, error = $4,
              next_attempt_at = CASE WHEN $2 = 'pending' THEN now() + make_interval(secs => $5::double precision / 1000) END
        WHERE id = $1`,
      [id, s.status, s.responseStatus, s.status === 'delivered' ? null : s.error, s.status === 'pending' ? s.retryInMs : 0],
    );
    await end(runner, 'commit');
  } catch (error) {
    await end(runner, 'rollback');
    throw error;
  }
}

async function end(runner: QueryRunner, how: 'commit' | 'rollback'): Promise<void> {
  try {
    if (runner.isTransactionActive) {
      await (how === 'commit' ? runner.commitTransaction() : runner.rollbackTransaction());
    }
  } finally {
    await runner.release();
  }
}

function claimed(row: Row): ClaimedDelivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    workspaceId: row.workspace_id,
    runId: row.run_id,
    url: row.url,
    // jsonb reads back with its keys in a fixed order: every attempt sends the same bytes.
    body: JSON.stringify(row.payload),
    attempts: row.attempts,
    sealed: row.sealed,
    previousSealed: row.previous_sealed,
  };
}
