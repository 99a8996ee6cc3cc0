import autocannon from 'autocannon';
import { CpuUsage } from './cpu-usage';

/** What a load run says about one server: its rate, latency and CPU per answered request. */
export interface HttpLoad {
  readonly result: autocannon.Result;
  readonly rate: number;
  /** The server process's CPU (user + system) over the run, per request answered. */
  readonly cpuMsPerRequest: number;
}

/** Runs autocannon against one server process and measures that process's CPU over the same window. */
export async function loadWithCpu(options: autocannon.Options, serverPid: number): Promise<HttpLoad> {
  const cpu = new CpuUsage(new Map([['server', serverPid]]));
  const result = await autocannon(options);
  const used = cpu.since().get('server') ?? 0;
  return { result, rate: result.requests.average, cpuMsPerRequest: result.requests.total > 0 ? used / result.requests.total : NaN };
}
