import { isLabelKey, isLabelValue, parseLabelSelector, refusedLabelKeys } from './run.labels';

describe('run labels (Kubernetes label form)', () => {
  it('takes a name of at most 63 characters, optionally after a DNS subdomain prefix of at most 253', () => {
    for (const key of ['team', 'a', 'A.b_c-9', 'example.com/team', 'k8s.io/app-name', `${'a'.repeat(253)}/x`, 'a'.repeat(63)]) {
      expect({ key, ok: isLabelKey(key) }).toEqual({ key, ok: true });
    }
    for (const key of [
      '',
      '-x',
      'x-',
      '_x',
      'has space',
      'a'.repeat(64),
      `${'a'.repeat(254)}/x`,
      'Ex.com/x',
      'a..b/x',
      '/x',
      'a/',
      'a/b/c',
    ]) {
      expect({ key, ok: isLabelKey(key) }).toEqual({ key, ok: false });
    }
  });

  it('takes an empty value or a name', () => {
    expect(['', 'ml', 'v1.2_3-x', 'a'.repeat(63)].every(isLabelValue)).toBe(true);
    expect(['-x', 'x.', 'a/b', 'a'.repeat(64), 'a=b'].some(isLabelValue)).toBe(false);
  });

  it('names the keys refused, a value that is not a string included', () => {
    expect(refusedLabelKeys({ team: 'ml', '-bad': 'x', env: 3, tier: 'a/b' })).toEqual(['-bad', 'env', 'tier']);
  });

  it('parses key=value filters at the first =, the value possibly empty', () => {
    expect(parseLabelSelector('team=ml')).toEqual({ key: 'team', value: 'ml' });
    expect(parseLabelSelector('example.com/tier=')).toEqual({ key: 'example.com/tier', value: '' });
    expect(parseLabelSelector('team')).toBeNull();
    expect(parseLabelSelector('team=a=b')).toBeNull();
    expect(parseLabelSelector('=ml')).toBeNull();
  });
});
