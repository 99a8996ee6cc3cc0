import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { PREVIOUS_EVENT_HEADER } from '@wrs/messaging';
import type { Figure } from './figure';
import { percentile, round } from './stats';
import { atMost } from './target';

/** One message in this many of the stream is the resumed run's. */
const RUN_EVENT_EVERY = 1000;
const MIN_RUN_EVENTS = 4;

/**
 * Where the run is resumed from (each a Last-Event-ID): its first event, its middle one and its last
 * but one, three different places. Each has an event of the run after it, else the stream would wait
 * for one forever.
 */
export function resumePoints(runSeqs: readonly number[]): { start: number; middle: number; head: number } {
  if (runSeqs.length < MIN_RUN_EVENTS) {
    throw new Error(
      `the run has ${runSeqs.length} event(s): three distinct places to resume at, each with an event after it, need ${MIN_RUN_EVENTS}`,
    );
  }
  return { start: runSeqs[0]!, middle: runSeqs[Math.floor((runSeqs.length - 1) / 2)]!, head: runSeqs[runSeqs.length - 2]! };
}

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
  if (total <= (MIN_RUN_EVENTS - 1) * RUN_EVENT_EVERY) {
    throw new Error(
      `BENCH_RESUME_EVENTS must be above ${(MIN_RUN_EVENTS - 1) * RUN_EVENT_EVERY}: the run (one event in ${RUN_EVENT_EVERY}) needs ${MIN_RUN_EVENTS}`,
    );
  }
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  const runId = randomUUID();
  const every = RUN_EVENT_EVERY;
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
  const points = resumePoints(runSeqs);
  const start = await at(points.start);
  const middle = await at(points.middle);
  const head = await at(points.head);
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

const FIRST_EVENT_TIMEOUT_MS = 60_000;

/** Opens an event stream and returns once its first event (an `id:` line) has arrived. */
async function untilFirstEvent(url: string, headers: Record<string, string>): Promise<void> {
  // A stream that never sends an event would hold the bench for good: it fails instead, saying where.
  const where = `${url} (Last-Event-ID ${headers['last-event-id']})`;
  const failed = (what: string) => (error: unknown) => {
    const late = error instanceof Error && error.name === 'TimeoutError';
    throw new Error(`${what} from ${where}${late ? ` within ${FIRST_EVENT_TIMEOUT_MS} ms` : ''}`, { cause: error });
  };
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(FIRST_EVENT_TIMEOUT_MS) }).catch(failed('no answer'));
  if (res.status !== 200) {
    throw new Error(`${where} answered ${res.status}: ${await res.text()}`);
  }
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\nid: ') && !text.startsWith('id: ')) {
    const { value, done } = await reader.read().catch(failed('no event'));
    if (done) {
      throw new Error(`${where} ended without an event`);
    }
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
}
