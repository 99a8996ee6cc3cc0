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
  it("accepts a container provider's limits", () => {
    const offers = parseProviderOffers(
      '[{"provider":"podman","kind":"container","regions":["local"],"priority":0,' +
        '"defaultMemory":"512Mi","defaultCpu":"500m","maxMemory":"8Gi","maxCpu":"4","pidsLimit":1024}]',
    );
    expect(offers[0]).toMatchObject({ defaultMemory: '512Mi', defaultCpu: '500m', maxMemory: '8Gi', maxCpu: '4', pidsLimit: 1024 });
  });
  it('accepts a default equal to its maximum', () => {
    expect(() =>
      parseProviderOffers(
        '[{"provider":"container","regions":["r"],"priority":0,"defaultMemory":"1024Mi","maxMemory":"1Gi","defaultCpu":"1000m","maxCpu":"1"}]',
      ),
    ).not.toThrow();
  });
  it.each([
    [
      'a memory quantity without a binary unit',
      '"defaultMemory":"1G"',
      '"defaultMemory" must be a memory quantity in Ki, Mi or Gi, e.g. "1Gi", not "1G"',
    ],
    [
      'a memory given as a number of bytes',
      '"maxMemory":1073741824',
      '"maxMemory" must be a memory quantity in Ki, Mi or Gi, e.g. "1Gi", not 1073741824',
    ],
    ['a fractional CPU', '"defaultCpu":"0.5"', '"defaultCpu" must be millicores ("500m") or whole cores ("2"), not "0.5"'],
    ['a CPU of 0', '"maxCpu":"0"', '"maxCpu" must be millicores ("500m") or whole cores ("2"), not "0"'],
    ['a pids limit of 0 (the engine would read no limit)', '"pidsLimit":0', '"pidsLimit" must be an integer from 1 to 4194304, not 0'],
    ['a pids limit of -1', '"pidsLimit":-1', '"pidsLimit" must be an integer from 1 to 4194304, not -1'],
    ['a pids limit given as text', '"pidsLimit":"4096"', '"pidsLimit" must be an integer from 1 to 4194304, not "4096"'],
    ['a default memory above the maximum', '"defaultMemory":"2Gi","maxMemory":"1Gi"', '"defaultMemory" 2Gi is above "maxMemory" 1Gi'],
    ['a default CPU above the maximum', '"defaultCpu":"2","maxCpu":"1500m"', '"defaultCpu" 2 is above "maxCpu" 1500m'],
  ])('refuses %s, naming the provider and the setting', (_what, fields, message) => {
    const json = `[{"provider":"podman","kind":"container","regions":["r"],"priority":0,${fields}}]`;
    expect(() => parseProviderOffers(json)).toThrow(ConfigError);
    expect(() => parseProviderOffers(json)).toThrow(`PROVIDERS_JSON: provider "podman": ${message}`);
  });
  it('refuses container limits on a kind that does not run containers', () => {
    expect(() => parseProviderOffers('[{"provider":"simulator","regions":["r"],"priority":0,"pidsLimit":64,"maxMemory":"1Gi"}]')).toThrow(
      'PROVIDERS_JSON: provider "simulator": "maxMemory", "pidsLimit" apply to kind "container" only',
    );
  });
  it('names every wrong limit at once', () => {
    const json = '[{"provider":"podman","kind":"container","regions":["r"],"priority":0,"defaultMemory":"lots","pidsLimit":0}]';
    const problems = (() => {
      try {
        parseProviderOffers(json);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    })();
    expect(problems).toEqual([
      'PROVIDERS_JSON: provider "podman": "defaultMemory" must be a memory quantity in Ki, Mi or Gi, e.g. "1Gi", not "lots"',
      'PROVIDERS_JSON: provider "podman": "pidsLimit" must be an integer from 1 to 4194304, not 0',
    ]);
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
