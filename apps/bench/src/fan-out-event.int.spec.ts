import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { RunEvent } from '@wrs/domain';
import { DEFAULT_STREAM_SETTINGS, ensureStreams, PREVIOUS_EVENT_HEADER, RunEventStore, StreamNames } from '@wrs/messaging';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { logLineAppender, type LogLineAppender } from './fan-out-event';

const at = '2026-11-26T06:00:00.000Z';

describe("the fan-out's one event, against real NATS", () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection | undefined;
  let store: RunEventStore;
  let appender: LogLineAppender | undefined;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connect({ servers: env.natsUrl });
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, new StreamNames(env.namespace), DEFAULT_STREAM_SETTINGS);
    store = new RunEventStore(jetstream(nc), jsm, new StreamNames(env.namespace));
    appender = await logLineAppender(env.natsUrl, env.namespace);
  });

  afterAll(async () => {
    await appender?.close();
    await nc?.close();
    await env.cleanup();
  });

  /** A running run with `lines` log lines already. */
  async function runningRun(runId: string, lines: number): Promise<number> {
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: { runId, workspaceId: 'bench', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: runId, at },
      },
      { type: 'run.started', data: { at } },
      ...Array.from({ length: lines }, (_, index): RunEvent => ({
        type: 'run.log',
        data: { index, stream: 'stdout', line: `l${index}`, at },
      })),
    ];
    return store.append('bench', runId, events, 0, 'test');
  }

  it("records one run.log after each run's last event, numbered after that run's own lines, and answers the JSON the stream holds", async () => {
    const first = '3f0c2a57-6d3b-4c43-9a39-5c2f0e1b7a10';
    const second = '8d1f4b2e-0c6a-4e7b-b5d3-2a9f6c1e4b70';
    const before = { [first]: await runningRun(first, 0), [second]: await runningRun(second, 3) };
    const sends = { [first]: await appender!.prepare('bench', first), [second]: await appender!.prepare('bench', second) };
    const sent = { [first]: await sends[first]!(), [second]: await sends[second]!() };
    const jsm = await jetstreamManager(nc!);
    for (const [runId, lines] of [
      [first, 0],
      [second, 3],
    ] as const) {
      const { events, version } = await store.read('bench', runId);
      expect(events.length).toBe(2 + lines + 1);
      expect(events.at(-1)!.event).toMatchObject({ type: 'run.log', data: { index: lines } });
      const stored = await jsm.streams.getMessage(new StreamNames(env.namespace).eventsStream, { seq: version });
      expect(stored!.string()).toBe(sent[runId]);
      expect(stored!.header.get(PREVIOUS_EVENT_HEADER)).toBe(String(before[runId]));
    }
  });

  it('a send prepared before another event of the run still records one line, after it', async () => {
    const runId = '5b7e9c1d-2f4a-4d8b-9e6c-1a3b5d7f9e20';
    await runningRun(runId, 1);
    const send = await appender!.prepare('bench', runId);
    const other = await store.append(
      'bench',
      runId,
      [{ type: 'run.log', data: { index: 1, stream: 'stderr', line: 'meanwhile', at } }],
      await store.version('bench', runId),
      'other',
    );
    await send();
    const { events } = await store.read('bench', runId);
    expect(events.slice(-2).map((e) => e.event)).toMatchObject([
      { data: { index: 1, line: 'meanwhile' } },
      { type: 'run.log', data: { index: 2 } },
    ]);
    expect((await store.version('bench', runId)) > other).toBe(true);
  });
});
