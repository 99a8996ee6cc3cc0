import { cpuNanos, memoryBytes } from './quantities';

describe('quantities', () => {
  it('reads CPU as millicores or cores', () => {
    expect(cpuNanos('500m')).toBe(500_000_000);
    expect(cpuNanos('2')).toBe(2_000_000_000);
  });
  it('reads memory in Ki, Mi, Gi', () => {
    expect(memoryBytes('512Ki')).toBe(524_288);
    expect(memoryBytes('256Mi')).toBe(268_435_456);
    expect(memoryBytes('1Gi')).toBe(1_073_741_824);
    expect(() => memoryBytes('1MB')).toThrow();
  });
});
