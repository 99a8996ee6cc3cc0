import { ConfigError } from './load-config';
import { kindOf, parseProviderOffers } from './providers';

describe('PROVIDERS_JSON', () => {
  it('accepts the kubernetes kind with a cost', () => {
    const offers = parseProviderOffers(
      '[{"provider":"k8s-eu","kind":"kubernetes","regions":["eu-1"],"priority":0,"cost":2.5,"capacity":10}]',
    );
    expect(offers).toEqual([{ provider: 'k8s-eu', kind: 'kubernetes', regions: ['eu-1'], priority: 0, cost: 2.5, capacity: 10 }]);
    expect(kindOf(offers[0]!)).toBe('kubernetes');
  });
  it('takes the kind from the name when none is given', () => {
    expect(kindOf(parseProviderOffers('[{"provider":"kubernetes","regions":["eu-1"],"priority":0}]')[0]!)).toBe('kubernetes');
  });
  it("accepts a container provider's pull policy and pull timeout", () => {
    const offers = parseProviderOffers(
      '[{"provider":"podman","kind":"container","regions":["local"],"priority":0,"pullPolicy":"Never","pullTimeoutSeconds":60}]',
    );
    expect(offers[0]).toMatchObject({ pullPolicy: 'Never', pullTimeoutSeconds: 60 });
  });
  it.each([
    ['an unknown pull policy', '[{"provider":"container","regions":["r"],"priority":0,"pullPolicy":"Sometimes"}]'],
    ['a pull timeout of 0', '[{"provider":"container","regions":["r"],"priority":0,"pullTimeoutSeconds":0}]'],
    ['a pull timeout that is not an integer', '[{"provider":"container","regions":["r"],"priority":0,"pullTimeoutSeconds":1.5}]'],
    [
      'a pull policy on a kind that does not pull',
      '[{"provider":"k8s","kind":"kubernetes","regions":["r"],"priority":0,"pullPolicy":"Always"}]',
    ],
  ])('refuses %s, naming the pull settings', (_what, json) => {
    expect(() => parseProviderOffers(json)).toThrow(
      /PROVIDERS_JSON: .*"pullPolicy"\?: "IfNotPresent"\|"Always"\|"Never", "pullTimeoutSeconds"/,
    );
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
