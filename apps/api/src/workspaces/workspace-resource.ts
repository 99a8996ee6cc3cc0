import { kindOf } from '@wrs/config';
import type { Immutable, PlacementOffer, Workspace, WorkspaceLimits } from '@wrs/contracts/types';
import { autoMayChoose, type ProviderOffer } from '@wrs/domain';
import type { ServiceLimits, WorkspaceLimits as OwnLimits } from '@wrs/limits';
import type { WorkspaceRecord } from '@wrs/persistence';

/**
 * `GET /workspaces/current`, built as literals of the contract's types (each limit named): a property the
 * contract drops, renames or retypes fails the type check on the line that still sends it.
 */
export function toWorkspace(
  workspace: WorkspaceRecord,
  limits: Immutable<WorkspaceLimits>,
  offers: readonly ProviderOffer[],
): Immutable<Workspace> {
  return {
    id: workspace.id,
    name: workspace.name,
    createdAt: workspace.createdAt,
    limits,
    placements: offers.map(toPlacementOffer),
  };
}

/** The workspace's own limits (its values where it has them), then those the same for every workspace. */
export function toWorkspaceLimits(own: OwnLimits, service: ServiceLimits): Immutable<WorkspaceLimits> {
  return {
    requestsPerMinute: own.requestsPerMinute,
    tokenRequestsPerMinute: own.tokenRequestsPerMinute,
    maxActiveRuns: own.maxActiveRuns,
    maxEventStreams: own.maxEventStreams,
    maxRequestBodyBytes: service.maxRequestBodyBytes,
    maxHeaderBytes: service.maxHeaderBytes,
    requestTimeoutSeconds: service.requestTimeoutSeconds,
    idempotencyKeyRetentionSeconds: service.idempotencyKeyRetentionSeconds,
    maxStreamDurationSeconds: service.maxStreamDurationSeconds,
    streamHeartbeatSeconds: service.streamHeartbeatSeconds,
    maxStreamBufferedBytes: service.maxStreamBufferedBytes,
    maxLogLinesPerRun: service.maxLogLinesPerRun,
    maxLogLineLength: service.maxLogLineLength,
    maxImageLength: service.maxImageLength,
    maxCommandEntries: service.maxCommandEntries,
    maxArgs: service.maxArgs,
    maxEnvEntries: service.maxEnvEntries,
    maxStringLength: service.maxStringLength,
    maxRunTimeoutSeconds: service.maxRunTimeoutSeconds,
    maxLabels: service.maxLabels,
  };
}

function toPlacementOffer(offer: ProviderOffer): Immutable<PlacementOffer> {
  return { provider: offer.provider, kind: kindOf(offer), regions: offer.regions, auto: autoMayChoose(offer) };
}
