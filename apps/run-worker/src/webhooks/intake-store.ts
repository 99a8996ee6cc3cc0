import { randomUUID } from 'node:crypto';
import type { StreamRunEvent } from '@wrs/messaging';
import { runNamed, type NamedStatement, type WebhookEventKind } from '@wrs/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import { logsPayload, LOGS_WINDOW_MS, MAX_LINES_PER_DELIVERY, owedBy, wants, type LogLine, type WebhookPayload } from './webhook-payloads';

interface Endpoint {
  id: string;
  workspace_id: string;
  events: WebhookEventKind[];
  created_at: Date;
}

/** Asked for most batches of `run.started` and terminal events: named, so it is planned once per connection. */
const ANY_ENDPOINT: NamedStatement = {
  name: 'wrs_webhooks_any_endpoint',
  text: 'SELECT 1 FROM webhooks WHERE workspace_id = ANY($1) LIMIT 1',
};

/** How long the cursor may stay behind events that owed nothing: a restart reads them again, and they owe nothing again. */
const IDLE_CURSOR_WRITE_MS = 1_000;

/**
 * Turns events into pending deliveries, in the same transaction as the intake's cursor: an event at or
 * below the cursor was already taken, so a replay (a restart, a second replica) adds nothing.
 */
export class IntakeStore {
  private cursorWrittenAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: DataSource,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async cursor(name: string): Promise<number> {
    const rows: { seq: string }[] = await this.db.query('SELECT seq FROM webhook_intake WHERE name = $1', [name]);
    return rows[0] ? Number(rows[0].seq) : 0;
  }

  /** Moves the cursor forward to `seq` past events nobody can be owed; never back (another replica may be further on). */
  async skipTo(name: string, seq: number): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_intake (name, seq) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET seq = EXCLUDED.seq WHERE webhook_intake.seq < EXCLUDED.seq`,
      [name, seq],
    );
  }

  /** Records what the events owe; answers how many deliveries were made or extended. */
  async take(name: string, events: readonly StreamRunEvent[]): Promise<number> {
    const last = events.at(-1);
    if (!last) {
      return 0;
    }
    // Events that owe nothing (no kind an endpoint takes, or no endpoint in their workspace) cost at
    // most one read, not a transaction and its commit per batch.
    const owing = events.filter((e) => owedBy(e) !== null);
    if (this.now() - this.cursorWrittenAt < IDLE_CURSOR_WRITE_MS && (owing.length === 0 || !(await this.anyEndpoint(owing)))) {
      return 0;
    }
    const taken = await this.db.transaction(async (m) => {
      await m.query('INSERT INTO webhook_intake (name, seq) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING', [name]);
      const [row] = (await m.query('SELECT seq FROM webhook_intake WHERE name = $1 FOR UPDATE', [name])) as { seq: string }[];
      const cursor = Number(row?.seq ?? 0);
      const fresh = events.filter((e) => e.seq > cursor);
      const workspaces = [...new Set(fresh.map((e) => e.workspaceId))];
      const endpoints: Endpoint[] =
        workspaces.length === 0
          ? []
          : await m.query('SELECT id, workspace_id, events, created_at FROM webhooks WHERE workspace_id = ANY($1) ORDER BY id', [
              workspaces,
            ]);
      let made = 0;
      for (const e of fresh) {
        const owed = owedBy(e);
        if (!owed) {
          continue;
        }
        // Only events from after an endpoint's registration are owed to it.
        const at = Date.parse(owed.kind === 'logs' ? owed.at : owed.payload.timestamp);
        for (const endpoint of endpoints.filter(
          (p) => p.workspace_id === e.workspaceId && wants(p.events, owed.kind) && at >= p.created_at.getTime(),
        )) {
          made +=
            owed.kind === 'logs' ? await addLine(m, endpoint, e, owed.line) : await insert(m, endpoint, e, owed.payload.type, owed.payload);
        }
      }
      await m.query('UPDATE webhook_intake SET seq = GREATEST(seq, $2) WHERE name = $1', [name, last.seq]);
      return made;
    });
    this.cursorWrittenAt = this.now();
    return taken;
  }

  private async anyEndpoint(events: readonly StreamRunEvent[]): Promise<boolean> {
    const workspaces = [...new Set(events.map((e) => e.workspaceId))];
    const rows = await runNamed(this.db, ANY_ENDPOINT, [workspaces]);
    return rows.length > 0;
  }
}

async function insert(
  m: EntityManager,
  endpoint: Endpoint,
  e: StreamRunEvent,
  type: string,
  payload: WebhookPayload,
  delayMs = 0,
): Promise<number> {
  await m.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, run_id, seq, last_seq, type, payload, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7, now() + make_interval(secs => $8::double precision / 1000)) ON CONFLICT (webhook_id, seq) DO NOTHING`,
    [`msg_${randomUUID().replace(/-/g, '')}`, endpoint.id, e.workspaceId, e.runId, e.seq, type, JSON.stringify(payload), delayMs],
  );
  return 1;
}

/**
 * Log lines are throttled by coalescing: a line joins the run's latest delivery to the endpoint if that
 * is a `run.logs` one no sender ever claimed, else starts a new one, due a second later. An endpoint gets
 * a run's lines at most about once a second; one that is slow or failing gets them up to a hundred at a
 * time. A claimed delivery may have been sent without its attempt being recorded: its retry must carry
 * the same body, since receivers drop a `webhook-id` they have seen.
 */
async function addLine(m: EntityManager, endpoint: Endpoint, e: StreamRunEvent, line: LogLine): Promise<number> {
  const [updated] = (await m.query(
    `WITH latest AS (
       SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND run_id = $2 ORDER BY seq DESC LIMIT 1
     ), open AS (
       SELECT d.id FROM webhook_deliveries d JOIN latest USING (id)
        WHERE d.type = 'run.logs' AND d.status = 'pending' AND d.attempts = 0 AND d.claimed_at IS NULL
          AND jsonb_array_length(d.payload->'data'->'lines') < ${MAX_LINES_PER_DELIVERY}
        FOR UPDATE OF d SKIP LOCKED
     )
     UPDATE webhook_deliveries SET payload = jsonb_set(payload, '{data,lines}', (payload->'data'->'lines') || $3::jsonb), last_seq = $4
      WHERE id IN (SELECT id FROM open)
      RETURNING id`,
    [endpoint.id, e.runId, JSON.stringify([line]), e.seq],
  )) as [unknown[], number];
  if (updated.length > 0) {
    return 1;
  }
  // Held for a moment, so the lines that follow join it: at most one `run.logs` a second per run and endpoint.
  return insert(m, endpoint, e, 'run.logs', logsPayload(e.runId, e.workspaceId, line), LOGS_WINDOW_MS);
}
