import type { RunCommand, Workload } from '@wrs/domain';

/** Commands the API appends to JetStream; the run-worker decides events from them. */
export interface CreateRunCommandMessage {
  readonly type: 'CreateRun';
  readonly runId: string;
  readonly workspaceId: string;
  readonly workload: Workload;
  readonly provider: string;
  readonly region: string;
  readonly idempotencyKey: string;
  readonly now: string;
  readonly requestId: string;
}

export interface CancelRunCommandMessage {
  readonly type: 'CancelRun';
  readonly runId: string;
  readonly workspaceId: string;
  readonly requestedBy: string;
  readonly now: string;
  readonly requestId: string;
}

export type RunCommandMessage = CreateRunCommandMessage | CancelRunCommandMessage;

/** The domain's create command for an accepted create (the api decides it, or a worker for an older api). */
export function createRunOf(command: CreateRunCommandMessage): Extract<RunCommand, { type: 'CreateRun' }> {
  const { runId, workspaceId, workload, provider, region, idempotencyKey, now } = command;
  return { type: 'CreateRun', runId, workspaceId, workload, provider, region, idempotencyKey, now };
}

/** What a claimed Idempotency-Key remembers: enough to answer a retry without Redis or Postgres. */
export interface IdempotencyClaim {
  readonly runId: string;
  readonly fingerprint: string;
  readonly createdAt: string;
}
