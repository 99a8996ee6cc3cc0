import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { CpuUsage } from './cpu-usage';
import { listeningPid } from './listening-pid';

describe('CpuUsage: CPU time by process from /proc', () => {
  it("counts the CPU this process burns as the load generator's, and a gone process as nothing", () => {
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

describe('CpuUsage: a server as its listening process and descendants', () => {
  it("finds the process listening on a port, and counts a server's exited children through it", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    expect(listeningPid(port)).toBe(process.pid);
    server.close();
    // This process as the server's root: a child that burns CPU and exits is still counted (cutime).
    const usage = new CpuUsage(new Map(), new Map([['server', process.pid]]));
    spawnSync(process.execPath, ['-e', 'const t = process.cpuUsage(); while (process.cpuUsage(t).user < 300000) {}']);
    expect(usage.since().get('server')).toBeGreaterThanOrEqual(250);
  });
});
