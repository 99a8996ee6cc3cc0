import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';

/**
 * Events of a Run: the facts the event store keeps. Derived state is a pure fold of these
 * (see run.state.ts). Event payloads never carry secrets.
 */
export interface Workload {
  readonly image: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutSeconds?: number;
  readonly resources?: Resources;
  /** Of Kubernetes' label form (run.labels.ts); what `GET /runs?label=` filters by. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Kubernetes quantities (`500m`, `2`; `256Mi`): each is both reserved and the limit. */
export interface Resources {
  readonly cpu?: string;
  readonly memory?: string;
}

/** A provider and region `auto` considered, with what it was ranked by (cost when configured, load when counted). */
export interface PlacementCandidate {
  readonly provider: string;
  readonly region: string;
  readonly cost?: number;
  /** Unfinished runs placed there when the run was placed. */
  readonly load?: number;
}

export interface Placement {
  readonly provider: string;
  readonly region: string;
  /** Why this provider and region were chosen, in words a user can read. */
  readonly reason: string;
  readonly candidates: readonly PlacementCandidate[];
  /** Candidates tried or skipped before this one, and why each could not take the run. */
  readonly failovers?: readonly Failover[];
}

/** A candidate passed over, and why it could not take the run. */
export interface Failover {
  readonly provider: string;
  readonly region: string;
  readonly code: FailoverCode;
  readonly message: string;
}

/**
 * Why a candidate was passed over: it was full, unhealthy, refused, the workspace has no credential
 * for it, or it could not get the image (another provider may have the credentials or the network).
 */
export const FAILOVER_CODES = [
  'no_capacity',
  'unhealthy',
  'provider_error',
  'image_not_found',
  'provider_credential_missing',
  'registry_auth_failed',
  'image_pull_timed_out',
] as const;
export type FailoverCode = (typeof FAILOVER_CODES)[number];

/**
 * Why a queued run is not running yet, when every candidate is ruled out for a reason that passes:
 * all places are in use, or the providers `auto` would use are unhealthy.
 */
export const WAIT_REASONS = ['no_capacity', 'provider_unhealthy'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** Log lines kept as events per run, and the longest line: a chatty workload cannot flood the stream. */
export const LOG_LIMITS = { maxLinesPerRun: 1000, maxLineLength: 4096 } as const;

export interface Failure {
  readonly code: FailureCode;
  readonly message: string;
}

export const FAILURE_CODES = [
  'workload_exit_nonzero',
  'image_not_found',
  'provider_error',
  'provider_credential_missing',
  'provider_lost',
  'no_capacity',
  'timed_out',
  /** The run was canceled but its provider did not confirm, within a bound, that the workload is gone. */
  'cancel_unconfirmed',
  /** The image's registry refused the provider's credentials (or asked for some it has none of). */
  'registry_auth_failed',
  /** Pulling the image took longer than the provider's pull timeout. */
  'image_pull_timed_out',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What a run is created from: the fields of the CreateRun command and of the `run.created` event. */
export interface RunCreation {
  readonly runId: string;
  readonly workspaceId: string;
  readonly workload: Workload;
  /** As requested (may be `auto`). */
  readonly provider: string;
  readonly region: string;
  readonly idempotencyKey: string;
  /** When the run is canceled if it has not finished (`Cancel-After` at its create), queue time included. */
  readonly deadline?: string;
}

/** Why the service canceled a run itself (absent: a person or program asked). */
export type CancelReason = 'deadline_exceeded';

export type RunEvent =
  | { readonly type: 'run.created'; readonly data: RunCreation & { readonly at: string } }
  | { readonly type: 'run.dispatched'; readonly data: { readonly placement: Placement; readonly at: string } }
  /** No candidate can take the queued run now, for this reason: recorded when the reason changes, not per attempt. */
  | { readonly type: 'run.waiting'; readonly data: { readonly reason: WaitReason; readonly message: string; readonly at: string } }
  /** The dispatched-to provider refused the workload for certain (nothing runs): the run is queued again. */
  | { readonly type: 'run.dispatch_refused'; readonly data: { readonly refusal: Failover; readonly at: string } }
  | { readonly type: 'run.started'; readonly data: { readonly at: string } }
  | {
      readonly type: 'run.log';
      readonly data: { readonly index: number; readonly stream: 'stdout' | 'stderr'; readonly line: string; readonly at: string };
    }
  | { readonly type: 'run.succeeded'; readonly data: { readonly exitCode: 0; readonly at: string } }
  | {
      readonly type: 'run.failed';
      readonly data: { readonly failure: Failure; readonly exitCode: number | null; readonly at: string };
    }
  | {
      readonly type: 'run.cancel_requested';
      readonly data: { readonly requestedBy: string; readonly reason?: CancelReason; readonly at: string };
    }
  | { readonly type: 'run.canceled'; readonly data: { readonly requestedBy: string; readonly reason?: CancelReason; readonly at: string } };

export type RunEventType = RunEvent['type'];

/**
 * Every kind, as the contract lists them (generated from its RunEventType by `npm run client:generate`).
 * A contract kind the domain has no event for fails the type check here; the reverse, run.events.unit.spec.ts.
 */
export const RUN_EVENT_TYPES: readonly RunEventType[] = RUN_EVENT_KINDS;

const TERMINAL_EVENT_TYPES: ReadonlySet<RunEventType> = new Set(['run.succeeded', 'run.failed', 'run.canceled']);

export function isTerminalEventType(type: string): boolean {
  return TERMINAL_EVENT_TYPES.has(type as RunEventType);
}
