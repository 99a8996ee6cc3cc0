import { readFileSync } from 'node:fs';
import { bareSseBaseline } from './bare-sse-baseline';
import type { Figure } from './figure';
import { round } from './stats';
import { atMost } from './target';

/** Idle SSE connections on one relay: memory each, and the time to deliver one event to all. */
export async function fanOut(
  baseUrl: string,
  token: string,
  runId: string,
  relayPid: number,
  connections: number,
  appendEvent: () => Promise<void>,
): Promise<Figure[]> {
  const before = rssOf(relayPid);
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
        const res = await fetch(`${baseUrl}/runs/${runId}/events`, {
          headers: { authorization: `Bearer ${token}` },
          signal: controller.signal,
        });
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
  const after = rssOf(relayPid);
  sentAt = performance.now();
  await appendEvent();
  const deadline = Date.now() + 10_000;
  while (arrivals.length < connections && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  controllers.forEach((c) => c.abort());
  await Promise.all(opened);
  const bare = await bareSseBaseline(connections);
  const perConnectionKiB = (after - before) / connections / 1024;
  const deliveryMs = Math.max(...arrivals, 0);
  return [
    {
      scenario: 'fan-out',
      metric: `memory per idle SSE connection (${connections} streams, relay RSS)`,
      value: round(perConnectionKiB, 1),
      unit: 'KiB',
      baseline: { what: 'bare node:http SSE server', value: round(bare.perConnectionKiB, 1) },
      ratio: round(perConnectionKiB / bare.perConnectionKiB, 2),
      target: atMost(2, 'ratio'),
    },
    // The delivery target is at 5,000 streams; smaller sizes are shown, not judged.
    {
      scenario: 'fan-out',
      metric: `one event to all ${connections} streams (last arrival)`,
      value: round(deliveryMs),
      unit: 'ms',
      baseline: { what: 'bare node:http SSE server', value: round(bare.deliveryMs) },
      ratio: round(deliveryMs / bare.deliveryMs, 2),
      ...(connections >= 5000 ? { target: atMost(1.3, 'ratio') } : {}),
    },
    { scenario: 'fan-out', metric: `streams that got the event`, value: arrivals.length, unit: `of ${connections}` },
  ];
}

function rssOf(pid: number): number {
  // /proc/<pid>/status VmRSS, in bytes.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}
