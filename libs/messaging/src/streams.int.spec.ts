import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { StreamNames } from './names';
import { connectNats } from './nats-connection';
import { ensureStreams, streamConfigs, streamSettingsOf } from './streams';

describe('ensureStreams against a real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    jsm = await jetstreamManager(nc);
    names = new StreamNames(env.namespace);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  it('creates every stream with the configured retention and replicas, and is safe to call again', async () => {
    const settings = streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 1 });
    await ensureStreams(jsm, names, settings);
    await ensureStreams(jsm, names, settings);
    for (const config of streamConfigs(names, settings)) {
      const info = await jsm.streams.info(config.name as string);
      expect({ name: info.config.name, replicas: info.config.num_replicas }).toEqual({ name: config.name, replicas: 1 });
    }
    expect((await jsm.streams.info(names.commandsStream)).config.max_age).toBe(600 * 1e9);
  });

  it('asks JetStream for the replicas it is told: a single server refuses 3, so the setting is really sent', async () => {
    const settings = streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 3 });
    const fresh = new StreamNames(`${env.namespace}r`);
    expect(streamConfigs(fresh, settings).map((c) => c.num_replicas)).toEqual([3, 3, 3]);
    await expect(ensureStreams(jsm, fresh, settings)).rejects.toThrow(/replicas > 1 not supported/);
    await expect(jsm.streams.info(fresh.eventsStream)).rejects.toThrow(/not found/);
  });
});
