import type { Failover, Failure, FailureCode, Placement, PlacementCandidate, WaitReason } from '../run/run.events';
import { AUTO, AUTO_POLICY } from './placement';

/** What the worker knows of a candidate when it places a run: nothing here calls a provider. */
export interface CandidateFacts {
  /** The worker has the candidate's provider configured and usable. */
  readonly available: boolean;
  /** Runs at once per region, when the offer bounds it. */
  readonly capacity?: number;
  /** Why the provider's health says to avoid it, or null when it is healthy. */
  readonly unhealthy: string | null;
}

export type PlacementDecision =
  | { readonly kind: 'place'; readonly placement: Placement }
  | { readonly kind: 'wait'; readonly reason: WaitReason; readonly message: string }
  | { readonly kind: 'fail'; readonly failure: Failure };

/**
 * Where a run goes next: the first candidate, in policy order, not refused before and not ruled out.
 * Unavailable or full candidates are skipped; unhealthy ones only for `auto`, since a named provider is
 * tried anyway. With none left the run waits if a skipped candidate may take it later, else it fails.
 */
export function decidePlacement(
  requested: { readonly provider: string; readonly region: string },
  candidates: readonly PlacementCandidate[],
  refusals: readonly Failover[],
  factsOf: (candidate: PlacementCandidate) => CandidateFacts,
): PlacementDecision {
  const failovers: Failover[] = [...refusals];
  for (const candidate of candidates) {
    if (refusals.some((r) => r.provider === candidate.provider && r.region === candidate.region)) {
      continue;
    }
    const skip = skipOf(candidate, factsOf(candidate), requested.provider === AUTO);
    if (skip) {
      failovers.push(skip);
      continue;
    }
    return {
      kind: 'place',
      placement: {
        provider: candidate.provider,
        region: candidate.region,
        reason: placementReason(requested, candidates.length, failovers.length),
        candidates,
        ...(failovers.length > 0 ? { failovers } : {}),
      },
    };
  }
  const tried = failovers.map((f) => `${f.provider}/${f.region}: ${f.code}: ${f.message}`).join('; ');
  // A candidate that is full or unhealthy may take the run later: the run waits for it.
  const passing = failovers.slice(refusals.length).find((f) => f.code === 'no_capacity' || f.code === 'unhealthy');
  if (passing) {
    return { kind: 'wait', reason: passing.code === 'unhealthy' ? 'provider_unhealthy' : 'no_capacity', message: `waiting: ${tried}` };
  }
  return {
    kind: 'fail',
    failure: {
      code: finalFailureCode(failovers),
      message: tried ? `no candidate could take the run (${tried})` : 'no configured provider offers the requested placement',
    },
  };
}

function skipOf(candidate: PlacementCandidate, facts: CandidateFacts, auto: boolean): Failover | null {
  const at = { provider: candidate.provider, region: candidate.region };
  if (!facts.available) {
    return { ...at, code: 'provider_error', message: 'the provider is not available to this worker' };
  }
  if (facts.capacity !== undefined && (candidate.load ?? 0) >= facts.capacity) {
    return { ...at, code: 'no_capacity', message: `all ${facts.capacity} places are in use` };
  }
  if (facts.unhealthy !== null && auto) {
    return { ...at, code: 'unhealthy', message: `skipped: ${facts.unhealthy}` };
  }
  return null;
}

/**
 * The failure code of a run no candidate took: the reason all candidates failed for, when they share one,
 * so the user learns what to fix (an unhealthy skip counts as a provider error); else `no_capacity`.
 */
export function finalFailureCode(failovers: readonly Failover[]): FailureCode {
  const codes = new Set(failovers.map((f) => f.code));
  const [only] = codes;
  if (codes.size !== 1 || only === undefined) {
    return 'no_capacity';
  }
  return only === 'unhealthy' ? 'provider_error' : only;
}

/** A provider's certain refusal either ends the run (the image exists nowhere) or moves it on to the next candidate. */
export function refusalEndsRun(code: Failover['code']): code is 'image_not_found' {
  return code === 'image_not_found';
}

function placementReason(requested: { readonly provider: string; readonly region: string }, candidates: number, skipped: number): string {
  const policy =
    requested.provider === AUTO || requested.region === AUTO ? `auto: ${candidates} candidate(s) by ${AUTO_POLICY}` : 'as requested';
  return skipped > 0 ? `${policy}; ${skipped} candidate(s) before this one could not take the run` : policy;
}
