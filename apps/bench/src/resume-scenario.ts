import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { PREVIOUS_EVENT_HEADER } from '@wrs/messaging';
import type { Figure } from './figure';
import { percentile, round } from './stats';
import { atMost } from './target';

/**
 * Resume cost by position: a run whose events are spread through a stream of `total` events (the rest
 * belong to other runs), resumed through the relay at its start, middle and near its head.
 */
export async function resumeCost(
  relayUrl: string,
  token: string,
  natsUrl: string,
  names: { eventsStream: string; subject: (runId: string) => string },
  total: number,
): Promise<Figure[]> {
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  const runId = randomUUID();
  const every = 1000;
  const runSeqs: number[] = [];
  let next = 0;
  let previous = 0;
  const base = JSON.stringify({
    type: 'run.log',
    runId,
    workspaceId: 'bench',
    time: new Date().toISOString(),
    data: { index: 0, stream: 'stdout', line: 'x', at: new Date().toISOString() },
  });
  // Other runs' events in batches of 64 in flight; every 1000th message is this run's (in order).
  while (next < total) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < 64 && next < total; i++, next++) {
      if (next % every === 0) {
        await Promise.all(batch.splice(0));
        const meta = headers();
        meta.set(PREVIOUS_EVENT_HEADER, String(previous));
        const ack = await js.publish(names.subject(runId), base, { headers: meta });
        previous = ack.seq;
        runSeqs.push(ack.seq);
      } else {
        batch.push(js.publish(names.subject(randomUUID()), base));
      }
    }
    await Promise.all(batch);
  }
  await nc.close();
  const at = async (lastEventId: number): Promise<number> => {
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await untilFirstEvent(`${relayUrl}/runs/${runId}/events`, { authorization: `Bearer ${token}`, 'last-event-id': String(lastEventId) });
      samples.push(performance.now() - started);
    }
    return percentile(samples, 50);
  };
  const start = await at(runSeqs[0]!);
  const middle = await at(runSeqs[Math.floor(runSeqs.length / 2)]!);
  const head = await at(runSeqs[runSeqs.length - 2]!);
  return [
    {
      scenario: 'resume',
      metric: `time to first event, resuming at the start of a ${total.toLocaleString('en')}-event stream`,
      value: round(start),
      unit: 'ms',
    },
    {
      scenario: 'resume',
      metric: 'time to first event, resuming in the middle',
      value: round(middle),
      unit: 'ms',
      baseline: { what: 'resume at the start', value: round(start) },
      ratio: round(middle / start, 2),
      target: atMost(2, 'ratio'),
    },
    {
      scenario: 'resume',
      metric: 'time to first event, resuming near the head',
      value: round(head),
      unit: 'ms',
      baseline: { what: 'resume at the start', value: round(start) },
      ratio: round(head / start, 2),
    },
  ];
}

/** Opens an event stream and returns once its first event (an `id:` line) has arrived. */
async function untilFirstEvent(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { headers });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\nid: ') && !text.startsWith('id: ')) {
    const { value, done } = await reader.read();
    if (done) {
      break;
    }
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
}
