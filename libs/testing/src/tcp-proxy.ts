import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What the proxy does to traffic right now. */
export type ProxyFault =
  | { readonly kind: 'none' }
  /** Every chunk, both ways, waits this long before it is passed on (order is kept). */
  | { readonly kind: 'latency'; readonly ms: number }
  /** New connections are accepted and then reset at once; existing ones were reset when it began. */
  | { readonly kind: 'reset' }
  /**
   * Connections are accepted, nothing is passed on either way and nothing is answered: a black hole.
   * Bytes are held, not dropped (as TCP retransmits through a real one) and flow again when it ends.
   */
  | { readonly kind: 'blackhole' };

/**
 * A TCP proxy between a service and one dependency (NATS, Postgres, Redis) that can add latency,
 * reset connections and black-hole traffic, so the chaos run meets network faults without touching
 * the network stack of the machine. The listening port stays the same across upstream restarts.
 */
export class TcpProxy {
  private server: Server | undefined;
  private fault: ProxyFault = { kind: 'none' };
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  port = 0;
  connections = 0;

  constructor(
    private readonly upstreamPort: number,
    private readonly upstreamHost = '127.0.0.1',
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  private healed: Promise<void> = Promise.resolve();
  private heal: () => void = () => undefined;

  setFault(fault: ProxyFault): void {
    const wasBlackhole = this.fault.kind === 'blackhole';
    this.fault = fault;
    if (fault.kind === 'blackhole' && !wasBlackhole) {
      this.healed = new Promise<void>((resolve) => (this.heal = resolve));
    }
    if (fault.kind !== 'blackhole' && wasBlackhole) {
      this.heal();
    }
    if (fault.kind === 'reset') {
      this.resetAll();
    }
  }

  /** Resets every open connection (RST both ways). */
  resetAll(): void {
    for (const pair of [...this.pairs]) {
      pair.client.resetAndDestroy();
      pair.upstream.resetAndDestroy();
      this.pairs.delete(pair);
    }
  }

  async close(): Promise<void> {
    this.resetAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    this.connections += 1;
    client.on('error', () => undefined);
    if (this.fault.kind === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ port: this.upstreamPort, host: this.upstreamHost });
    upstream.on('error', () => undefined);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('close', end);
    upstream.once('close', end);
    this.pipe(client, upstream);
    this.pipe(upstream, client);
  }

  /** Passes chunks on in order, each after the current fault's delay; a black hole holds them. */
  private pipe(from: Socket, to: Socket): void {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const fault = this.fault;
      if (fault.kind === 'blackhole') {
        from.pause();
        const healed = this.healed;
        chain = chain
          .then(() => healed)
          .then(() => {
            if (!to.destroyed) {
              to.write(chunk);
            }
            from.resume();
          });
        return;
      }
      if (fault.kind === 'latency') {
        from.pause();
        chain = chain
          .then(() => new Promise<void>((resolve) => setTimeout(resolve, fault.ms)))
          .then(() => {
            if (!to.destroyed) {
              to.write(chunk);
            }
            from.resume();
          });
        return;
      }
      chain = chain.then(() => {
        if (!to.destroyed) {
          to.write(chunk);
        }
      });
    });
  }
}
