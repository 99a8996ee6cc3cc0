import { CpuUsage } from './cpu-usage';

describe('CpuUsage: CPU time by process from /proc', () => {
  it('counts the CPU this process burns as the load generator\'s, and a gone process as nothing', () => {
    const usage = new CpuUsage(new Map([['gone', 2 ** 22 + 12345]]));
    // Spin until Node itself says this process used 150 ms of CPU (wall time would depend on the load).
    const start = process.cpuUsage();
    let spent = 0;
    while (spent < 150_000) {
      const { user, system } = process.cpuUsage(start);
      spent = user + system;
    }
    const used = usage.since();
    // /proc counts in 10 ms clock ticks.
    expect(used.get('load generator')).toBeGreaterThanOrEqual(130);
    expect(used.get('load generator')).toBeLessThanOrEqual(spent / 1000 + 100);
    expect(used.get('gone')).toBe(0);
    expect([...used.keys()]).toEqual(expect.arrayContaining(['nats-server', 'postgres', 'redis-server']));
  });
});
