import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { RunEvent } from '@wrs/domain';
import { DEFAULT_STREAM_SETTINGS, ensureStreams, RunEventStore, StreamNames } from '@wrs/messaging';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { logLineAppender } from './fan-out-event';

const at = '2026-11-26T06:00:00.000Z';

describe("the fan-out's one event, against real NATS", () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connect({ servers: env.natsUrl });
    await ensureStreams(await jetstreamManager(nc), new StreamNames(env.namespace), DEFAULT_STREAM_SETTINGS);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  it('appends one run.log after the run’s last event, naming it, and answers the JSON the stream holds', async () => {
    const names = new StreamNames(env.namespace);
    const store = new RunEventStore(jetstream(nc), await jetstreamManager(nc), names);
    const runId = '3f0c2a57-6d3b-4c43-9a39-5c2f0e1b7a10';
    const started: RunEvent[] = [
      {
        type: 'run.created',
        data: { runId, workspaceId: 'bench', workload: { image: 'x' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
      },
      { type: 'run.started', data: { at } },
    ];
    const before = await store.append('bench', runId, started, 0, 'test');
    const appender = await logLineAppender(env.natsUrl, env.namespace);
    try {
      const sent = await appender.append('bench', runId);
      const { events, version } = await store.read('bench', runId);
      expect(events.map((e) => e.event.type)).toEqual(['run.created', 'run.started', 'run.log']);
      expect(version).toBeGreaterThan(before);
      const last = await (await jetstreamManager(nc)).streams.getMessage(names.eventsStream, { seq: version });
      expect(last!.string()).toBe(sent);
      expect(last!.header.get('Run-Previous-Seq')).toBe(String(before));
      // A second one goes after the first: each append reads the run's version again.
      await appender.append('bench', runId);
      expect((await store.read('bench', runId)).events.map((e) => e.event.type)).toEqual([
        'run.created',
        'run.started',
        'run.log',
        'run.log',
      ]);
    } finally {
      await appender.close();
    }
  });
});
