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
  it('accepts auto everywhere', () => expect(checkRequestedPlacement(offers, 'auto', 'auto')).toEqual({ ok: true }));
});
