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
    const settings = streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 1, AUTH_TOKEN_MAX_TTL_SECONDS: 3600 });
    await ensureStreams(jsm, names, settings);
    await ensureStreams(jsm, names, settings);
    for (const config of streamConfigs(names, settings)) {
      const info = await jsm.streams.info(config.name as string);
      expect({ name: info.config.name, replicas: info.config.num_replicas }).toEqual({ name: config.name, replicas: 1 });
    }
    expect((await jsm.streams.info(names.commandsStream)).config.max_age).toBe(600 * 1e9);
  });

  it('keeps revocations as long as the longest token they can revoke, plus skew, from the configuration', async () => {
    const fresh = new StreamNames(`${env.namespace}t`);
    const day = streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 1, AUTH_TOKEN_MAX_TTL_SECONDS: 24 * 3600 });
    await ensureStreams(jsm, fresh, day);
    const maxAgeSeconds = (await jsm.streams.info(fresh.revocationsStream)).config.max_age / 1e9;
    expect(maxAgeSeconds).toBeGreaterThanOrEqual(24 * 3600 + 30);
    // The configuration changes: the stream follows (a shorter maximum shortens it).
    await ensureStreams(
      jsm,
      fresh,
      streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 1, AUTH_TOKEN_MAX_TTL_SECONDS: 600 }),
    );
    expect((await jsm.streams.info(fresh.revocationsStream)).config.max_age / 1e9).toBe(600 + 60);
    for (const name of [fresh.eventsStream, fresh.commandsStream, fresh.revocationsStream]) {
      await jsm.streams.delete(name);
    }
  });

  it('asks JetStream for the replicas it is told: a single server refuses 3, so the setting is really sent', async () => {
    const settings = streamSettingsOf({ IDEMPOTENCY_RETENTION_SECONDS: 600, JETSTREAM_REPLICAS: 3, AUTH_TOKEN_MAX_TTL_SECONDS: 3600 });
    const fresh = new StreamNames(`${env.namespace}r`);
    expect(streamConfigs(fresh, settings).map((c) => c.num_replicas)).toEqual([3, 3, 3]);
    await expect(ensureStreams(jsm, fresh, settings)).rejects.toThrow(/replicas > 1 not supported/);
    await expect(jsm.streams.info(fresh.eventsStream)).rejects.toThrow(/not found/);
  });
});
