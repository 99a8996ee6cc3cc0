import type { DataSource } from 'typeorm';
import { runNamed, type NamedStatement } from './named-statement';

/** What may be shown of a stored provider key: never the key, never its sealed form. */
export interface ProviderCredentialSummary {
  readonly id: string;
  readonly provider: string;
  readonly region: string | null;
  readonly fingerprint: string;
  readonly lastFour: string;
  readonly createdAt: string;
}

export interface ProviderCredentialRecord extends ProviderCredentialSummary {
  readonly workspaceId: string;
  readonly sealed: unknown;
}

interface Row {
  id: string;
  workspace_id: string;
  provider: string;
  region: string | null;
  fingerprint: string;
  last_four: string;
  sealed: unknown;
  created_at: Date;
}

const SUMMARY = 'id, workspace_id, provider, region, fingerprint, last_four, created_at';

/** The worker asks this for every run it dispatches: named, so it is planned once per connection. */
const FOR_DISPATCH: NamedStatement = {
  name: 'wrs_credential_for_dispatch',
  text: `SELECT ${SUMMARY}, sealed FROM provider_credentials
          WHERE workspace_id = $1 AND provider = $2 AND (region = $3 OR region IS NULL)
          ORDER BY (region IS NULL), created_at DESC LIMIT 1`,
};

export class ProviderCredentials {
  constructor(private readonly db: DataSource) {}

  async add(record: Omit<ProviderCredentialRecord, 'createdAt'>): Promise<ProviderCredentialSummary> {
    const rows: Row[] = await this.db.query(
      `INSERT INTO provider_credentials (id, workspace_id, provider, region, fingerprint, last_four, sealed)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${SUMMARY}`,
      [record.id, record.workspaceId, record.provider, record.region, record.fingerprint, record.lastFour, JSON.stringify(record.sealed)],
    );
    return summary(rows[0] as Row);
  }

  async list(workspaceId: string): Promise<ProviderCredentialSummary[]> {
    const rows: Row[] = await this.db.query(`SELECT ${SUMMARY} FROM provider_credentials WHERE workspace_id = $1 ORDER BY created_at, id`, [
      workspaceId,
    ]);
    return rows.map(summary);
  }

  /** Deletes the workspace's credential; false when there is none (another workspace's counts as none). */
  async remove(workspaceId: string, id: string): Promise<ProviderCredentialSummary | null> {
    // TypeORM answers DELETE ... RETURNING with [rows, affected count].
    const [rows] = (await this.db.query(`DELETE FROM provider_credentials WHERE workspace_id = $1 AND id = $2 RETURNING ${SUMMARY}`, [
      workspaceId,
      id,
    ])) as [Row[], number];
    const [row] = rows;
    return row ? summary(row) : null;
  }

  async fingerprintInUse(fingerprint: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query('SELECT 1 FROM provider_credentials WHERE fingerprint = $1 LIMIT 1', [fingerprint]);
    return rows.length > 0;
  }

  /**
   * Every (workspace, region) with a credential for the provider: the clusters the worker looks at for
   * stray workloads. A credential for any region is listed with region `*` (which it matches).
   */
  async placesOf(provider: string): Promise<{ workspaceId: string; region: string }[]> {
    const rows: { workspace_id: string; region: string | null }[] = await this.db.query(
      'SELECT DISTINCT workspace_id, region FROM provider_credentials WHERE provider = $1',
      [provider],
    );
    return rows.map((row) => ({ workspaceId: row.workspace_id, region: row.region ?? '*' }));
  }

  /** For the worker at dispatch: the sealed key for a provider (and region, else any region). */
  async forDispatch(workspaceId: string, provider: string, region: string): Promise<ProviderCredentialRecord | null> {
    const rows = await runNamed<Row>(this.db, FOR_DISPATCH, [workspaceId, provider, region]);
    const [row] = rows;
    return row ? { ...summary(row), workspaceId: row.workspace_id, sealed: row.sealed } : null;
  }
}

function summary(row: Row): ProviderCredentialSummary {
  return {
    id: row.id,
    provider: row.provider,
    region: row.region,
    fingerprint: row.fingerprint,
    lastFour: row.last_four,
    createdAt: row.created_at.toISOString(),
  };
}
