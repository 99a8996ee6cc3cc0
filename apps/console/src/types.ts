/** The parts of the contract's schemas the console shows (libs/contracts/openapi.yaml). */
export const RUN_STATES = ['queued', 'starting', 'running', 'canceling', 'succeeded', 'failed', 'canceled'] as const;

export interface Placement {
  provider: string;
  region: string;
  reason: string;
  candidates: { provider: string; region: string }[];
  failovers?: { provider: string; region: string; code: string; message: string }[];
}

export interface Run {
  id: string;
  workspaceId: string;
  state: string;
  terminal: boolean;
  workload: { image: string; command?: string[]; args?: string[]; env?: Record<string, string>; timeoutSeconds?: number; labels?: Record<string, string> };
  provider: string;
  region: string;
  placement: Placement | null;
  idempotencyKey: string;
  createdAt: string;
  dispatchedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  exitCode: number | null;
  failure: { code: string; message: string } | null;
  cancellation: { requestedBy: string; requestedAt: string } | null;
  logLines: number;
  version: number;
}

export interface RunList {
  items: Run[];
  nextCursor: string | null;
}

/** A provider a run may name, with the regions it may name with it (GET /workspaces/current). */
export interface PlacementOffer {
  provider: string;
  kind: string;
  regions: string[];
}

/** The parts of GET /workspaces/current the console uses (placements: since contract 0.3.1). */
export interface WorkspaceInfo {
  id: string;
  placements?: PlacementOffer[];
}

export interface Session {
  workspaceId: string;
  subject: string;
  expiresAt: string;
  csrfToken: string;
}

/** One `data:` of the event stream. */
export interface RunEventEnvelope {
  type: string;
  runId: string;
  time: string;
  data: Record<string, unknown>;
}
