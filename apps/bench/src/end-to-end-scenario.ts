import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { CREATE_BODY } from './create-scenario';
import type { CpuUsage } from './cpu-usage';
import { perRun } from './cpu-per-run';
import type { Figure } from './figure';
import type { StatementStats, StatementWindow } from './pg-statements';
import { firstEvent, postJson } from './light-http';
import { percentile, round } from './stats';
import { below } from './target';

/** The runs' lives go on a little after their first events: a CPU window lasts this long after the load, so the worker finishes them. */
export const AFTER_WINDOW_MS = 3000;

/**
 * Create-to-first-event through the whole stack at a steady rate, against raw NATS pub-to-sub: the
 * create straight to the api, the stream straight to the relay (as an ingress routes them), after a
 * second of warm-up at the same rate. Also its two halves (the create's answer, then the stream's
 * first event), so a queue shows where it is. With `statements`, Postgres's per-statement counters
 * over the same window as the CPU.
 */
export async function endToEnd(
  apiUrl: string,
  relayUrl: string,
  token: string,
  natsUrl: string,
  perSecond: number,
  seconds: number,
  measureCpu: () => CpuUsage,
  judgeLatency: boolean,
  statements?: StatementStats,
): Promise<{ figures: Figure[]; cpuPerRun: Map<string, number>; statements?: StatementWindow }> {
  const steady = (count: number): Promise<SteadyRuns> => steadyRuns(apiUrl, relayUrl, token, perSecond, count);
  await steady(perSecond); // warm-up
  await statements?.reset();
  const cpu = measureCpu();
  const { total, answers, firstEvents, failed } = await steady(perSecond * seconds);
  await new Promise((r) => setTimeout(r, AFTER_WINDOW_MS));
  const cpuPerRun = perRun(cpu.since(), perSecond * seconds);
  const counted = await statements?.read();
  const raw = await rawNatsLatency(natsUrl, 500);
  const at = `at ${perSecond} runs/s`;
  const figures: Figure[] = [
    {
      scenario: 'end-to-end',
      metric: `create-to-first-event p50 ${at}`,
      value: round(percentile(total, 50)),
      unit: 'ms',
      baseline: { what: 'raw NATS publish-to-subscriber p50', value: round(percentile(raw, 50), 3) },
      ...(judgeLatency ? { target: below(20) } : {}),
    },
    {
      scenario: 'end-to-end',
      metric: `create-to-first-event p99 ${at}`,
      value: round(percentile(total, 99)),
      unit: 'ms',
      baseline: { what: 'raw NATS publish-to-subscriber p99', value: round(percentile(raw, 99), 3) },
      ...(judgeLatency ? { target: below(100) } : {}),
    },
    { scenario: 'end-to-end', metric: `of which the create's answer, p50 ${at}`, value: round(percentile(answers, 50)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which the create's answer, p99 ${at}`, value: round(percentile(answers, 99)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which answer to first event, p50 ${at}`, value: round(percentile(firstEvents, 50)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `of which answer to first event, p99 ${at}`, value: round(percentile(firstEvents, 99)), unit: 'ms' },
    { scenario: 'end-to-end', metric: `runs that failed (create not 201, or no first event) ${at}`, value: failed, unit: 'count' },
  ];
  return { figures, cpuPerRun, ...(counted ? { statements: counted } : {}) };
}

/** What a steady load of runs saw: per run its create-to-first-event, the create's answer, the wait after it; and the runs that failed. */
export interface SteadyRuns {
  readonly total: number[];
  readonly answers: number[];
  readonly firstEvents: number[];
  failed: number;
}

/**
 * `count` runs at `perSecond`, each a POST /runs (a create's body, its own Idempotency-Key) straight
 * to `apiUrl`, then a GET of its event stream straight to `relayUrl` until the first event, which the
 * client then closes.
 */
export async function steadyRuns(apiUrl: string, relayUrl: string, token: string, perSecond: number, count: number): Promise<SteadyRuns> {
  const auth = { authorization: `Bearer ${token}` };
  const out: SteadyRuns = { total: [], answers: [], firstEvents: [], failed: 0 };
  const interval = 1000 / perSecond;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((r) => setTimeout(r, Math.max(0, t0 + i * interval - performance.now())));
      try {
        const started = performance.now();
        const created = await postJson(`${apiUrl}/runs`, { ...auth, 'idempotency-key': randomUUID() }, CREATE_BODY);
        if (created.status !== 201) {
          throw new Error(`create answered ${created.status}`);
        }
        const answered = performance.now();
        await firstEvent(`${relayUrl}/runs/${(created.json as { id: string }).id}/events`, auth);
        const done = performance.now();
        out.total.push(done - started);
        out.answers.push(answered - started);
        out.firstEvents.push(done - answered);
      } catch {
        out.failed++;
      }
    }),
  );
  return out;
}

async function rawNatsLatency(natsUrl: string, samples: number): Promise<number[]> {
  const nc = await connect({ servers: natsUrl });
  const subject = `bench.latency.${randomUUID()}`;
  const out: number[] = [];
  const sub = nc.subscribe(subject);
  const done = (async () => {
    for await (const m of sub) {
      out.push(performance.now() - Number(m.string()));
      if (out.length >= samples) {
        break;
      }
    }
  })();
  for (let i = 0; i < samples; i++) {
    nc.publish(subject, String(performance.now()));
    await new Promise((r) => setTimeout(r, 1));
  }
  await done;
  await nc.close();
  return out;
}
