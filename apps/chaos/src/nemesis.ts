import type { LocalStack } from '@wrs/devstack';
import { armFailpoint, type FailpointFault } from './failpoint-fault';
import { Random } from './random';
import { sleep, type DependencyName, type OwnServers } from './servers';
import type { TcpProxy } from '@wrs/testing';

export type Fault =
  | { readonly kind: 'kill-service'; readonly target: string; readonly downMs: number }
  | { readonly kind: 'kill-server'; readonly target: DependencyName; readonly downMs: number }
  | { readonly kind: 'pause-service'; readonly target: string; readonly ms: number }
  | { readonly kind: 'pause-server'; readonly target: DependencyName; readonly ms: number }
  | { readonly kind: 'latency'; readonly target: DependencyName; readonly ms: number; readonly delayMs: number }
  | { readonly kind: 'reset'; readonly target: DependencyName; readonly ms: number }
  | { readonly kind: 'blackhole'; readonly target: DependencyName; readonly ms: number }
  | FailpointFault;

export interface ScheduledFault {
  /** Seconds after the fault phase began. */
  readonly at: number;
  readonly fault: Fault;
}

export interface InjectedFault extends ScheduledFault {
  readonly startedAt: string;
  readonly endedAt: string;
  readonly tookMs: number;
  readonly error?: string;
}

const SERVICES = ['api', 'run-worker', 'run-worker-2', 'stream-relay', 'stream-relay-2'] as const;
const DEPENDENCIES: readonly DependencyName[] = ['nats', 'postgres', 'redis'];

/** Every kind of fault once, for a target picked by the seed. */
function oneOfEach(random: Random): Fault[] {
  const dep = (): DependencyName => random.pick(DEPENDENCIES);
  return [
    { kind: 'kill-service', target: 'api', downMs: random.int(200, 1500) },
    { kind: 'kill-service', target: random.pick(['run-worker', 'run-worker-2']), downMs: random.int(200, 1500) },
    { kind: 'kill-service', target: random.pick(['stream-relay', 'stream-relay-2']), downMs: random.int(200, 1500) },
    { kind: 'kill-server', target: 'nats', downMs: random.int(300, 2000) },
    { kind: 'kill-server', target: 'postgres', downMs: random.int(300, 2000) },
    { kind: 'kill-server', target: 'redis', downMs: random.int(300, 2000) },
    { kind: 'pause-service', target: random.pick(SERVICES), ms: random.int(500, 3000) },
    { kind: 'pause-server', target: dep(), ms: random.int(500, 3000) },
    { kind: 'latency', target: dep(), ms: random.int(1000, 4000), delayMs: random.int(50, 400) },
    { kind: 'reset', target: dep(), ms: random.int(200, 1500) },
    { kind: 'blackhole', target: dep(), ms: random.int(500, 3000) },
  ];
}

/**
 * The faults of a run, decided up front from the seed alone, so `CHAOS_SEED=<seed>` replays the same
 * schedule. The short profile injects every kind of fault once in a seeded order; the long one keeps
 * drawing rounds of them for the whole phase.
 */
export function schedule(seed: number, seconds: number, profile: 'short' | 'long'): ScheduledFault[] {
  const random = new Random(seed ^ 0x5eed);
  const out: ScheduledFault[] = [];
  let at = 2;
  do {
    const round = random.shuffle(oneOfEach(random));
    // Short: the round spread over the phase. Long: a fault every ~6 s on average, round after round.
    const gap = profile === 'short' ? Math.max(1, (seconds - 4) / round.length) : Math.min(6, Math.max(1, (seconds - 4) / round.length));
    for (const fault of round) {
      if (at >= seconds - 2) {
        break;
      }
      out.push({ at: Math.round(at * 10) / 10, fault });
      at += profile === 'short' ? gap : gap * (0.5 + random.next());
    }
  } while (profile === 'long' && at < seconds - 2);
  return out;
}

export class Nemesis {
  readonly injected: InjectedFault[] = [];

  constructor(
    private readonly stack: LocalStack,
    private readonly servers: OwnServers,
    private readonly proxies: Record<DependencyName, TcpProxy>,
    private readonly log: (line: string) => void,
  ) {}

  /** Runs the schedule (one fault at a time, each undone before the next). */
  async run(faults: readonly ScheduledFault[], phaseStart: number): Promise<void> {
    for (const scheduled of faults) {
      const wait = phaseStart + scheduled.at * 1000 - Date.now();
      if (wait > 0) {
        await sleep(wait);
      }
      const started = Date.now();
      this.log(`fault at ${((started - phaseStart) / 1000).toFixed(1)} s: ${describe(scheduled.fault)}`);
      let error: string | undefined;
      try {
        await this.inject(scheduled.fault);
      } catch (e) {
        error = String(e);
        this.log(`fault ${describe(scheduled.fault)} failed: ${error}`);
      }
      this.injected.push({
        ...scheduled,
        startedAt: new Date(started).toISOString(),
        endedAt: new Date().toISOString(),
        tookMs: Date.now() - started,
        ...(error ? { error } : {}),
      });
    }
  }

  /** Undoes everything: proxies pass traffic, paused processes go on, dead ones start again. */
  async heal(): Promise<void> {
    for (const proxy of Object.values(this.proxies)) {
      proxy.setFault({ kind: 'none' });
    }
    for (const server of [this.servers.nats, this.servers.postgres, this.servers.redis]) {
      server.signal('SIGCONT');
      if (server.pid === undefined) {
        await server.start();
      }
    }
    for (const service of SERVICES) {
      const child = this.stack.processes.get(service);
      if (child?.pid && child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid, 'SIGCONT');
      } else {
        this.stack.startService(service);
        await this.stack.waitUntilServing(service);
      }
    }
  }

  private async inject(fault: Fault): Promise<void> {
    switch (fault.kind) {
      case 'failpoint':
        return armFailpoint(this.stack, fault);
      case 'kill-service':
        await this.stack.kill(fault.target, 'SIGKILL');
        await sleep(fault.downMs);
        this.stack.startService(fault.target);
        await this.stack.waitUntilServing(fault.target);
        return;
      case 'kill-server': {
        const server = this.servers[fault.target];
        await server.kill('SIGKILL');
        await sleep(fault.downMs);
        await server.start();
        return;
      }
      case 'pause-service': {
        const pid = this.stack.processes.get(fault.target)?.pid;
        if (pid === undefined) {
          throw new Error(`${fault.target} has no process`);
        }
        process.kill(pid, 'SIGSTOP');
        await sleep(fault.ms);
        process.kill(pid, 'SIGCONT');
        return;
      }
      case 'pause-server': {
        const server = this.servers[fault.target];
        server.signal('SIGSTOP');
        await sleep(fault.ms);
        server.signal('SIGCONT');
        return;
      }
      case 'latency':
        this.proxies[fault.target].setFault({ kind: 'latency', ms: fault.delayMs });
        await sleep(fault.ms);
        this.proxies[fault.target].setFault({ kind: 'none' });
        return;
      case 'reset':
        this.proxies[fault.target].setFault({ kind: 'reset' });
        await sleep(fault.ms);
        this.proxies[fault.target].setFault({ kind: 'none' });
        return;
      case 'blackhole':
        this.proxies[fault.target].setFault({ kind: 'blackhole' });
        await sleep(fault.ms);
        this.proxies[fault.target].setFault({ kind: 'none' });
        return;
    }
  }
}

export function describe(fault: Fault): string {
  switch (fault.kind) {
    case 'kill-service':
    case 'kill-server':
      return `kill -9 ${fault.target}, restarted after ${fault.downMs} ms`;
    case 'pause-service':
    case 'pause-server':
      return `SIGSTOP ${fault.target} for ${fault.ms} ms, then SIGCONT`;
    case 'latency':
      return `+${fault.delayMs} ms latency to ${fault.target} for ${fault.ms} ms`;
    case 'reset':
      return `reset every connection to ${fault.target}, refusing new ones for ${fault.ms} ms`;
    case 'blackhole':
      return `black hole to ${fault.target} for ${fault.ms} ms`;
    case 'failpoint':
      return `${fault.target} restarted with FAILPOINT=${fault.name} (${fault.sibling} down meanwhile), restarted unarmed ${fault.downMs} ms after it died`;
  }
}
