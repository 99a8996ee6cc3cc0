import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import { connectNats } from './nats-connection';
import { StreamNames } from './names';
import { ensureStreams } from './streams';
import { sessionHashOf, TokenRevocations } from './token-revocations';

describe('TokenRevocations against real JetStream', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let names: StreamNames;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    nc = await connectNats(env.natsUrl, 'test');
    names = new StreamNames(env.namespace);
    jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
  });

  afterAll(async () => {
    await nc.close();
    await env.cleanup();
  });

  it('forgets a revocation once no credential it could revoke is still alive, so memory follows the stream', async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const revocations = new TokenRevocations(jetstream(nc), jsm, names, 60_000, () => now);
    await revocations.start();
    await revocations.revoke('old-token');
    await revocations.endSession('old-session');
    expect(revocations.isSessionEnded(sessionHashOf('old-session'))).toBe(true);
    now += 61_000;
    await revocations.revoke('new-token');
    expect(revocations.isRevoked('new-token')).toBe(true);
    expect(revocations.isRevoked('old-token')).toBe(false);
    expect(revocations.isSessionEnded(sessionHashOf('old-session'))).toBe(false);
    expect(revocations.size).toBe(1);
    await revocations.stop();
  });

  it('a replica started later knows a revocation still within retention, from the stream', async () => {
    const first = new TokenRevocations(jetstream(nc), jsm, names);
    await first.start();
    await first.revoke('revoked-before-start');
    const later = new TokenRevocations(jetstream(nc), jsm, names);
    await later.start();
    await eventually(
      () => Promise.resolve(later.isRevoked('revoked-before-start') ? true : undefined),
      5_000,
      'the later replica to know the revocation',
    );
    await Promise.all([first.stop(), later.stop()]);
  });
});
