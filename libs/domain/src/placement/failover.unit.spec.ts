import type { Failover, PlacementCandidate } from '../run/run.events';
import { decidePlacement, finalFailureCode, refusalEndsRun, type CandidateFacts } from './failover';

const a1: PlacementCandidate = { provider: 'a', region: 'r1', load: 0 };
const a2: PlacementCandidate = { provider: 'a', region: 'r2', load: 3 };
const b1: PlacementCandidate = { provider: 'b', region: 'r1', load: 0 };
const auto = { provider: 'auto', region: 'auto' };
const ok: CandidateFacts = { available: true, unhealthy: null };
const facts =
  (byProvider: Record<string, Partial<CandidateFacts>>) =>
  (c: PlacementCandidate): CandidateFacts => ({ ...ok, ...byProvider[c.provider] });
const refusedAt = (c: PlacementCandidate, code: Failover['code'] = 'provider_error'): Failover => ({
  provider: c.provider,
  region: c.region,
  code,
  message: 'no',
});

describe('placement with failover (pure)', () => {
  it('places on the first candidate when nothing rules it out', () => {
    const decision = decidePlacement(auto, [a1, b1], [], facts({}));
    expect(decision).toMatchObject({ kind: 'place', placement: { provider: 'a', region: 'r1' } });
    expect(decision.kind === 'place' && decision.placement.failovers).toBeUndefined();
  });

  it('skips candidates refused before and lists them first among the failovers', () => {
    const decision = decidePlacement(auto, [a1, a2, b1], [refusedAt(a1)], facts({}));
    expect(decision).toMatchObject({ kind: 'place', placement: { provider: 'a', region: 'r2', failovers: [refusedAt(a1)] } });
  });

  it('skips full, unavailable and (for auto only) unhealthy candidates, saying why', () => {
    const decision = decidePlacement(auto, [a1, a2, b1], [], facts({ a: { capacity: 3, unhealthy: 'probe failed' } }));
    // a1 has room (load 0 < 3) but is unhealthy; a2 is full; b1 takes it.
    expect(decision).toMatchObject({
      kind: 'place',
      placement: { provider: 'b', failovers: [{ code: 'unhealthy' }, { code: 'no_capacity' }] },
    });
    const named = decidePlacement({ provider: 'a', region: 'auto' }, [a1], [], facts({ a: { unhealthy: 'probe failed' } }));
    expect(named).toMatchObject({ kind: 'place', placement: { provider: 'a' } });
    expect(decidePlacement(auto, [a1], [], facts({ a: { available: false } }))).toMatchObject({
      kind: 'fail',
      failure: { code: 'provider_error' },
    });
  });

  it('waits when every candidate left is full or unhealthy: the first such gives the reason', () => {
    expect(decidePlacement(auto, [a1, b1], [], facts({ a: { capacity: 0 }, b: { unhealthy: 'probe failed' } }))).toMatchObject({
      kind: 'wait',
      reason: 'no_capacity',
      message: expect.stringContaining('b/r1: unhealthy'),
    });
    expect(decidePlacement(auto, [a1, b1], [refusedAt(a1)], facts({ b: { unhealthy: 'probe failed' } }))).toMatchObject({
      kind: 'wait',
      reason: 'provider_unhealthy',
    });
    // A refusal is for good: a run every candidate refused fails.
    expect(decidePlacement(auto, [a1], [refusedAt(a1, 'no_capacity')], facts({}))).toMatchObject({ kind: 'fail' });
  });

  it('fails with the one reason every candidate gave, else no_capacity', () => {
    expect(
      decidePlacement(auto, [a1, b1], [refusedAt(a1, 'registry_auth_failed'), refusedAt(b1, 'registry_auth_failed')], facts({})),
    ).toMatchObject({
      kind: 'fail',
      failure: { code: 'registry_auth_failed' },
    });
    expect(finalFailureCode([refusedAt(a1, 'unhealthy')])).toBe('provider_error');
    expect(finalFailureCode([refusedAt(a1, 'provider_error'), refusedAt(b1, 'no_capacity')])).toBe('no_capacity');
    expect(decidePlacement(auto, [], [], facts({}))).toMatchObject({
      kind: 'fail',
      failure: { message: 'no configured provider offers the requested placement' },
    });
  });

  it('ends the run on a missing image only: other refusals move on', () => {
    expect(refusalEndsRun('image_not_found')).toBe(true);
    expect(refusalEndsRun('registry_auth_failed')).toBe(false);
    expect(refusalEndsRun('provider_error')).toBe(false);
  });
});
