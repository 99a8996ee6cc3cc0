import { isCompatibleContract } from './version-compatibility';

describe('contract pinning', () => {
  it('accepts the same version and newer minors or patches of the same major', () => {
    expect(isCompatibleContract('0.1.0', '0.1.0')).toBe(true);
    expect(isCompatibleContract('0.1.3', '0.1.0')).toBe(true);
    expect(isCompatibleContract('1.2.0', '1.1.5')).toBe(true);
  });

  it('under 0.x, refuses another minor: there it is the major (a 0.3 contract may break 0.2 clients)', () => {
    expect(isCompatibleContract('0.2.0', '0.1.0')).toBe(false);
    expect(isCompatibleContract('0.3.0', '0.2.0')).toBe(false);
  });

  it('refuses an older server, another major, and versions that are not x.y.z', () => {
    expect(isCompatibleContract('0.1.0', '0.2.0')).toBe(false);
    expect(isCompatibleContract('0.1.0', '0.1.1')).toBe(false);
    expect(isCompatibleContract('1.0.0', '0.9.0')).toBe(false);
    expect(isCompatibleContract('v1', '0.1.0')).toBe(false);
  });
});
