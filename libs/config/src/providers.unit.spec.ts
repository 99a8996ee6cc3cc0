import { ConfigError } from './load-config';
import { kindOf, parseProviderOffers } from './providers';

describe('PROVIDERS_JSON', () => {
  it('accepts the kubernetes kind with a cost', () => {
    const offers = parseProviderOffers('[{"provider":"k8s-eu","kind":"kubernetes","regions":["eu-1"],"priority":0,"cost":2.5,"capacity":10}]');
    expect(offers).toEqual([{ provider: 'k8s-eu', kind: 'kubernetes', regions: ['eu-1'], priority: 0, cost: 2.5, capacity: 10 }]);
    expect(kindOf(offers[0]!)).toBe('kubernetes');
  });
  it('takes the kind from the name when none is given', () => {
    expect(kindOf(parseProviderOffers('[{"provider":"kubernetes","regions":["eu-1"],"priority":0}]')[0]!)).toBe('kubernetes');
  });
  it.each([
    ['an unknown kind', '[{"provider":"x","kind":"nomad","regions":["r"],"priority":0}]'],
    ['a negative cost', '[{"provider":"x","kind":"kubernetes","regions":["r"],"priority":0,"cost":-1}]'],
    ['a cost that is not a number', '[{"provider":"x","kind":"kubernetes","regions":["r"],"priority":0,"cost":"1"}]'],
  ])('refuses %s, naming the variable and the allowed kinds', (_what, json) => {
    expect(() => parseProviderOffers(json)).toThrow(ConfigError);
    expect(() => parseProviderOffers(json)).toThrow(/PROVIDERS_JSON: .*"simulator"\|"container"\|"kubernetes"/);
  });
});
