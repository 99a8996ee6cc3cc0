import { readFileSync } from 'node:fs';
import { bareSseServer } from './bare-sse-baseline';
import type { Figure } from './figure';
import { median, round } from './stats';
import { atMost } from './target';

/** How many times each side's delivery is measured: one measurement of each decided no verdict (1.3-1.7x in three runs). */
export const FAN_OUT_ROUNDS = 3;

/** A run whose stream the relay serves, and how to make it send one more event (which may end it). */
export interface FanOutRun {
  readonly runId: string;
  readonly appendEvent: () => Promise<void>;
}

/**
 * Idle SSE connections on one relay: memory each (from the first round), and the time to deliver one
 * event to all, the median of FAN_OUT_ROUNDS rounds on each side, the two sides taking turns so a busy
 * moment of the box falls on both. Each relay round streams a new run: its event may end the run.
 */
export async function fanOut(
  baseUrl: string,
  token: string,
  relayPid: number,
  connections: number,
  newRun: () => Promise<FanOutRun>,
): Promise<Figure[]> {
  // The same request to both (the bare server ignores the token, but holds the request as the relay does).
  const headers = { authorization: `Bearer ${token}` };
  const server = await bareSseServer();
  const rounds: { relay: IdleStreams; bare: IdleStreams }[] = [];
  for (let i = 0; i < FAN_OUT_ROUNDS; i++) {
    const run = await newRun();
    const relay = await idleStreams(`${baseUrl}/runs/${run.runId}/events`, headers, relayPid, connections, run.appendEvent);
    const bare = await idleStreams(server.url, headers, server.pid, connections, () => Promise.resolve(server.send()));
    rounds.push({ relay, bare });
  }
  const relay = {
    ...rounds[0]!.relay,
    deliveryMs: median(rounds.map((r) => r.relay.deliveryMs)),
    arrived: Math.min(...rounds.map((r) => r.relay.arrived)),
  };
  const bare = { ...rounds[0]!.bare, deliveryMs: median(rounds.map((r) => r.bare.deliveryMs)) };
  return [
    idleMemoryFigure(connections, relay.perConnectionKiB, bare.perConnectionKiB),
    // The delivery target is at 5,000 streams; smaller sizes are shown, not judged.
    {
      scenario: 'fan-out',
      metric: `one event to all ${connections} streams (last arrival, median of ${FAN_OUT_ROUNDS} rounds)`,
      value: round(relay.deliveryMs),
      unit: 'ms',
      baseline: { what: 'bare node:http SSE server', value: round(bare.deliveryMs) },
      ratio: round(relay.deliveryMs / bare.deliveryMs, 2),
      ...(connections >= 5000 ? { target: atMost(1.3, 'ratio') } : {}),
    },
    {
      scenario: 'fan-out',
      metric: `streams that got the event (the fewest of ${FAN_OUT_ROUNDS} rounds)`,
      value: relay.arrived,
      unit: `of ${connections}`,
    },
  ];
}

/**
 * Memory per idle connection against the bare server's, judged at most 2x. Each side is RSS growth with
 * neither made to collect garbage, so a collection within the window can shrink it: a growth of zero or
 * less measures nothing (21:35 UTC: -22.5 KiB per stream, "met"), and then the figure has no ratio and misses.
 */
export function idleMemoryFigure(connections: number, relayKiB: number, bareKiB: number): Figure {
  const measured = relayKiB > 0 && bareKiB > 0;
  return {
    scenario: 'fan-out',
    metric: `memory per idle SSE connection (${connections} streams, relay RSS)${measured ? '' : '; RSS fell in the window (garbage collected), nothing measured'}`,
    value: round(relayKiB, 1),
    unit: 'KiB',
    baseline: { what: 'bare node:http SSE server', value: round(bareKiB, 1) },
    ...(measured ? { ratio: round(relayKiB / bareKiB, 2) } : {}),
    target: atMost(2, 'ratio'),
  };
}

interface IdleStreams {
  readonly perConnectionKiB: number;
  readonly deliveryMs: number;
  readonly arrived: number;
}

/**
 * Opens `connections` streams on the server `pid` serves at `url`, each ready once it has read its
 * first event; reads the server's RSS growth a second after the last opened (garbage not collected:
 * neither side is made to collect); then sends one event and times its last arrival. The relay and the
 * bare server are measured by this one function, from outside their processes.
 */
async function idleStreams(
  url: string,
  headers: Record<string, string>,
  pid: number,
  connections: number,
  send: () => Promise<void>,
): Promise<IdleStreams> {
  const before = rssOf(pid);
  const arrivals: number[] = [];
  const controllers: AbortController[] = [];
  let ready = 0;
  let sentAt = 0;
  const opened: Promise<void>[] = [];
  for (let i = 0; i < connections; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    opened.push(
      (async () => {
        const res = await fetch(url, { headers, signal: controller.signal });
        const reader = res.body!.getReader();
        let seen = 0;
        let counted = false;
        let arrived = false;
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) {
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
      })().catch(() => undefined),
    );
  }
  while (ready < connections) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssOf(pid);
  sentAt = performance.now();
  await send();
  const deadline = Date.now() + 10_000;
  while (arrivals.length < connections && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  controllers.forEach((c) => c.abort());
  await Promise.all(opened);
  return { perConnectionKiB: (after - before) / connections / 1024, deliveryMs: Math.max(...arrivals, 0), arrived: arrivals.length };
}

function rssOf(pid: number): number {
  // /proc/<pid>/status VmRSS, in bytes.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}
