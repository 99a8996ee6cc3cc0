import { bareSseServer } from './bare-sse-baseline';
import type { Figure } from './figure';
import { heapAfterCollection } from './heap-after-collection';
import { median, round } from './stats';
import { atMost } from './target';

/** How many times each side's delivery is measured: one measurement of each decided no verdict (1.3-1.7x in three runs). */
export const FAN_OUT_ROUNDS = 3;

/** How long all of a round's streams may take to open and read their first event. */
const OPEN_PATIENCE_MS = 120_000;
/**
 * Streams being opened at once (their answer's headers not in yet). All 5,000 at once overflowed the
 * server's accept queue on a slow machine, and the connects past undici's 10 s timeout failed the run.
 */
const OPENING_AT_ONCE = 256;

/** A run whose stream the relay serves, and how to make it send one more event (its JSON, what the relay sends as `data`). */
export interface FanOutRun {
  readonly runId: string;
  readonly appendEvent: () => Promise<string>;
}

/**
 * Idle SSE connections on one relay: memory each (from the first round), and the time to deliver one
 * event to all, the median of FAN_OUT_ROUNDS rounds on each side, the two sides taking turns so a busy
 * moment of the box falls on both. Each relay round streams a new run; the bare server's round after it
 * sends the same event JSON, so both write frames of the same size (within the few digits of their ids).
 */
export async function fanOut(
  baseUrl: string,
  token: string,
  relay: { readonly pid: number; readonly inspectPort: number },
  connections: number,
  newRun: () => Promise<FanOutRun>,
): Promise<Figure[]> {
  // The same request to both (the bare server ignores the token, but holds the request as the relay does).
  const headers = { authorization: `Bearer ${token}` };
  const server = await bareSseServer();
  const relayMemory = (): Promise<number> => heapAfterCollection(relay.pid, relay.inspectPort);
  const bareMemory = (): Promise<number> => heapAfterCollection(server.pid, server.inspectPort);
  const rounds: { relay: IdleStreams; bare: IdleStreams }[] = [];
  for (let i = 0; i < FAN_OUT_ROUNDS; i++) {
    const run = await newRun();
    let sent: string | undefined;
    const relay = await idleStreams(`${baseUrl}/runs/${run.runId}/events`, headers, relayMemory, connections, async () => {
      sent = await run.appendEvent();
    });
    if (sent === undefined) {
      throw new Error(`the relay's round on run ${run.runId} sent no event`);
    }
    const data = sent;
    const bare = await idleStreams(server.url, headers, bareMemory, connections, () => Promise.resolve(server.send(data)));
    rounds.push({ relay, bare });
  }
  const relayDeliveryMs = median(rounds.map((r) => r.relay.deliveryMs));
  const bareDeliveryMs = median(rounds.map((r) => r.bare.deliveryMs));
  return [
    idleMemoryFigure(connections, rounds[0]!.relay.perConnectionKiB, rounds[0]!.bare.perConnectionKiB),
    // The issue's delivery target is at 5,000 streams; smaller sizes are shown, not judged.
    {
      scenario: 'fan-out',
      metric: `one event to all ${connections} streams (last arrival, median of ${FAN_OUT_ROUNDS} rounds)`,
      value: round(relayDeliveryMs),
      unit: 'ms',
      baseline: { what: 'bare node:http SSE server', value: round(bareDeliveryMs) },
      ratio: round(relayDeliveryMs / bareDeliveryMs, 2),
      ...(connections >= 5000 ? { target: atMost(1.3, 'ratio') } : {}),
    },
    {
      scenario: 'fan-out',
      metric: `streams that got the event (the fewest of ${FAN_OUT_ROUNDS} rounds)`,
      value: Math.min(...rounds.map((r) => r.relay.arrived)),
      unit: `of ${connections}`,
    },
  ];
}

/**
 * Memory per idle connection against the bare server's, judged at most 2x: each side's JavaScript heap
 * and external memory after a full collection, with the streams open against before them. A growth of
 * zero or less measures nothing, and then the figure has no ratio and misses (RSS growth without a
 * collection once gave -22.5 KiB per stream, "met").
 */
export function idleMemoryFigure(connections: number, relayKiB: number, bareKiB: number): Figure {
  const measured = relayKiB > 0 && bareKiB > 0;
  return {
    scenario: 'fan-out',
    metric: `memory per idle SSE connection (${connections} streams, heap and external memory after a full collection)${measured ? '' : '; it did not grow, nothing measured'}`,
    value: round(relayKiB, 1),
    unit: 'KiB',
    baseline: { what: 'bare node:http SSE server', value: round(bareKiB, 1) },
    ...(measured ? { ratio: round(relayKiB / bareKiB, 2) } : {}),
    target: atMost(2, 'ratio'),
  };
}

export interface IdleStreams {
  readonly perConnectionKiB: number;
  readonly deliveryMs: number;
  readonly arrived: number;
}

/**
 * Opens `connections` streams on a server at `url`, each ready once it has read its first event; reads
 * the server's memory (`memory`: after a full collection) before they open and a second after the last
 * opened; then sends one event and times its last arrival. The relay and the bare server are measured
 * by this one function, from outside their processes. A stream that fails to open, or all of them not
 * ready within `openPatienceMs`, fails the round with the first failure seen: it must not hang the bench.
 */
export async function idleStreams(
  url: string,
  headers: Record<string, string>,
  memory: () => Promise<number>,
  connections: number,
  send: () => Promise<void>,
  openPatienceMs = OPEN_PATIENCE_MS,
): Promise<IdleStreams> {
  const before = await memory();
  const arrivals: number[] = [];
  const controllers: AbortController[] = [];
  let ready = 0;
  let sentAt = 0;
  let firstFailure: string | undefined;
  const fail = (why: string): void => {
    firstFailure ??= why;
  };
  const opened: Promise<void>[] = [];
  const opening = new Slots(OPENING_AT_ONCE);
  for (let i = 0; i < connections; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    opened.push(
      (async () => {
        await opening.take();
        const res = await fetch(url, { headers, signal: controller.signal }).finally(() => opening.give());
        if (!res.ok || !res.body) {
          fail(`HTTP ${res.status}: ${(await res.text().catch(() => '')).slice(0, 200)}`);
          return;
        }
        const reader = res.body.getReader();
        let seen = 0;
        let counted = false;
        let arrived = false;
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) {
            if (!counted && sentAt === 0) {
              fail('a stream ended before its first event');
            }
            return;
          }
          const text = new TextDecoder().decode(value);
          seen += (text.match(/\nid: /g) ?? []).length + (text.startsWith('id: ') ? 1 : 0);
          if (seen >= 1 && !counted && sentAt === 0) {
            counted = true;
            ready++;
          } else if (sentAt > 0 && text.includes('id: ') && !arrived) {
            arrived = true;
            arrivals.push(performance.now() - sentAt);
          }
        }
      })().catch((error: unknown) => fail(`${String(error)}${error instanceof Error && error.cause ? ` (${String(error.cause)})` : ''}`)),
    );
  }
  const giveUp = async (why: string): Promise<never> => {
    controllers.forEach((c) => c.abort());
    await Promise.all(opened);
    throw new Error(`only ${ready} of ${connections} streams at ${url} had their first event: ${why}`);
  };
  const openDeadline = Date.now() + openPatienceMs;
  while (ready < connections) {
    if (firstFailure !== undefined) {
      await giveUp(firstFailure);
    }
    if (Date.now() > openDeadline) {
      await giveUp(`not within ${openPatienceMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const after = await memory();
  sentAt = performance.now();
  try {
    await send();
    const deadline = Date.now() + 10_000;
    while (arrivals.length < connections && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    // A send that failed must not leave thousands of streams open behind the bench's error.
    controllers.forEach((c) => c.abort());
    await Promise.all(opened);
  }
  return { perConnectionKiB: (after - before) / connections / 1024, deliveryMs: Math.max(...arrivals, 0), arrived: arrivals.length };
}

/** At most `size` holders at once; the others wait in order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.free++;
    }
  }
}
