import { checkRequestedPlacement, choosePlacement, placementCandidates, type ProviderOffer } from './placement';

const offers: ProviderOffer[] = [
  { provider: 'kubernetes', regions: ['eu-1'], priority: 1 },
  { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 0 },
];

describe('placement', () => {
  it('orders auto candidates by priority, then configured region order', () => {
    expect(placementCandidates(offers, 'auto', 'auto')).toEqual([
      { provider: 'simulator', region: 'local-1' },
      { provider: 'simulator', region: 'local-2' },
      { provider: 'kubernetes', region: 'eu-1' },
    ]);
  });
  it('auto provider with a fixed region keeps only providers offering it', () => {
    expect(choosePlacement(offers, 'auto', 'eu-1')).toMatchObject({ provider: 'kubernetes', region: 'eu-1' });
  });
  it('explains an explicit choice', () => {
    expect(choosePlacement(offers, 'simulator', 'local-2')).toMatchObject({ region: 'local-2', reason: 'as requested' });
  });
  it('refuses an unknown provider with the allowed values', () => {
    expect(checkRequestedPlacement(offers, 'aws', 'auto')).toEqual({
      ok: false,
      field: 'provider',
      allowed: ['auto', 'kubernetes', 'simulator'],
    });
  });
  it('refuses a region the provider does not offer', () => {
    expect(checkRequestedPlacement(offers, 'simulator', 'eu-1')).toEqual({
      ok: false,
      field: 'region',
      allowed: ['auto', 'local-1', 'local-2'],
    });
  });
  it('between equal priorities prefers the cheaper offer', () => {
    const priced: ProviderOffer[] = [
      { provider: 'alpha', regions: ['a-1'], priority: 0, cost: 5 },
      { provider: 'beta', regions: ['b-1'], priority: 0, cost: 2 },
      { provider: 'gamma', regions: ['g-1'], priority: 1, cost: 0 },
    ];
    expect(placementCandidates(priced, 'auto', 'auto').map((c) => c.provider)).toEqual(['beta', 'alpha', 'gamma']);
  });
  it('between equal priority and cost prefers the less loaded region, and records cost and load', () => {
    const loads: Record<string, number> = { 'local-1': 4, 'local-2': 1 };
    const candidates = placementCandidates(
      [{ provider: 'sim', regions: ['local-1', 'local-2'], priority: 0, cost: 1 }],
      'auto',
      'auto',
      (_p, r) => loads[r] ?? 0,
    );
    expect(candidates).toEqual([
      { provider: 'sim', region: 'local-2', cost: 1, load: 1 },
      { provider: 'sim', region: 'local-1', cost: 1, load: 4 },
    ]);
  });
  it('priority outranks cost, and cost outranks load', () => {
    const offers2: ProviderOffer[] = [
      { provider: 'cheap-busy', regions: ['r'], priority: 0, cost: 1 },
      { provider: 'dear-idle', regions: ['r'], priority: 0, cost: 9 },
      { provider: 'preferred', regions: ['r'], priority: -1, cost: 99 },
    ];
    const load = (p: string): number => (p === 'cheap-busy' ? 50 : 0);
    expect(placementCandidates(offers2, 'auto', 'auto', load).map((c) => c.provider)).toEqual(['preferred', 'cheap-busy', 'dear-idle']);
  });
  it('accepts auto everywhere', () => expect(checkRequestedPlacement(offers, 'auto', 'auto')).toEqual({ ok: true }));

  it('with auto, refuses a region only an offer marked auto: false has (it would be accepted and then find no candidate)', () => {
    const mixed: ProviderOffer[] = [
      { provider: 'container', regions: ['local'], priority: 0 },
      { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 1, auto: false },
    ];
    expect(checkRequestedPlacement(mixed, 'auto', 'local-1')).toEqual({ ok: false, field: 'region', allowed: ['auto', 'local'] });
    expect(placementCandidates(mixed, 'auto', 'local-1')).toEqual([]);
    expect(checkRequestedPlacement(mixed, 'auto', 'local')).toEqual({ ok: true });
    expect(checkRequestedPlacement(mixed, 'simulator', 'local-1')).toEqual({ ok: true });
  });

  it('refuses auto as provider when every offer is marked auto: false, and does not offer it', () => {
    const named: ProviderOffer[] = [{ provider: 'simulator', regions: ['local-1'], priority: 0, auto: false }];
    expect(checkRequestedPlacement(named, 'auto', 'auto')).toEqual({ ok: false, field: 'provider', allowed: ['simulator'] });
    expect(checkRequestedPlacement(named, 'aws', 'auto')).toEqual({ ok: false, field: 'provider', allowed: ['simulator'] });
    expect(checkRequestedPlacement(named, 'simulator', 'auto')).toEqual({ ok: true });
  });

  it('auto never chooses an offer marked auto: false; asking for it by name still does', () => {
    const mixed: ProviderOffer[] = [
      { provider: 'container', regions: ['local'], priority: 0 },
      { provider: 'simulator', regions: ['local-1'], priority: 1, auto: false },
    ];
    expect(placementCandidates(mixed, 'auto', 'auto').map((c) => c.provider)).toEqual(['container']);
    expect(placementCandidates(mixed, 'simulator', 'auto').map((c) => c.provider)).toEqual(['simulator']);
  });
});
