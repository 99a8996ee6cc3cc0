import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SESSION_COOKIE, SessionStore } from '@wrs/auth';
import type { RunEvent } from '@wrs/domain';
import { connectNats, connectRedis, ensureStreams, RunEventStore, StreamNames, TokenRevocations } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, readSse, testSigningKey, testToken, type IsolatedEnvironment, type SseResult } from '@wrs/testing';
import { startTestRelay, type TestRelay } from './test-relay.testing';

const at = '2026-11-21T10:00:00.000Z';
const created = (runId: string): RunEvent => ({
  type: 'run.created',
  data: { runId, workspaceId: 'ws-a', workload: { image: 'busybox' }, provider: 'auto', region: 'auto', idempotencyKey: 'k', at },
});
const placement = { provider: 'simulator', region: 'local-1', reason: 'as requested', candidates: [] };

/**
 * Property 10 on the relay: an open stream ends with its credential (expiry, revocation made elsewhere,
 * logout), with a final comment and no id; a fresh credential resumes exactly with Last-Event-ID.
 * Each test waits for the stream's end (bounded), it never times it.
 */
describe('open event streams end with their credential', () => {
  const { key, publicKeyFile } = testSigningKey();
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let store: RunEventStore;
  /** Another replica's (or the admin command's) view of the revocation stream. */
  let elsewhere: TokenRevocations;
  const relays: TestRelay[] = [];

  async function startRelay(): Promise<string> {
    const relay = await startTestRelay(env, publicKeyFile, { SSE_HEARTBEAT_MS: '1000' });
    relays.push(relay);
    return relay.base;
  }

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    nc = await connectNats(env.natsUrl, 'test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    elsewhere = new TokenRevocations(jetstream(nc), jsm, names);
    await elsewhere.start();
  });

  afterAll(async () => {
    for (const relay of relays) {
      await relay.close();
    }
    await elsewhere.stop();
    await nc.close();
    await env.cleanup();
  });

  /** A run with one event and no end: its stream stays open until something ends it. */
  async function openRun(): Promise<{ runId: string; first: number }> {
    const runId = randomUUID();
    return { runId, first: await store.append('ws-a', runId, [created(runId)], 0, `c-${runId}`) };
  }

  /** Reads the stream; once the first event is in, does `then` (once); returns when the server ends it. */
  function follow(base: string, runId: string, headers: Record<string, string>, then: () => Promise<unknown>): Promise<SseResult> {
    let done = false;
    return readSse(`${base}/runs/${runId}/events`, headers, {
      timeoutMs: 20_000,
      until: (events) => {
        if (events.length > 0 && !done) {
          done = true;
          void then();
        }
        return false;
      },
    });
  }

  const jtiOf = (token: string): string =>
    (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { jti: string }).jti;

  it('ends a stream on replica A when its token is revoked elsewhere; a fresh token resumes exactly', async () => {
    const relayA = await startRelay();
    const { runId, first } = await openRun();
    const doomed = testToken(key, 'ws-a');
    const stream = await follow(relayA, runId, { authorization: `Bearer ${doomed}` }, () => elsewhere.revoke(jtiOf(doomed)));
    expect(stream.status).toBe(200);
    expect(stream.endedByServer).toBe(true);
    expect(stream.events.map((e) => e.id)).toEqual([String(first)]);
    expect(stream.text.endsWith(': end credential_revoked\n\n')).toBe(true);

    // The run goes on while nobody listens; a new token picks up exactly after the last id seen.
    const dispatched = await store.append('ws-a', runId, [{ type: 'run.dispatched', data: { placement, at } }], first, `d-${runId}`);
    const succeeded = await store.append('ws-a', runId, [{ type: 'run.succeeded', data: { exitCode: 0, at } }], dispatched, `s-${runId}`);
    const resumed = await readSse(`${relayA}/runs/${runId}/events`, {
      authorization: `Bearer ${testToken(key, 'ws-a')}`,
      'last-event-id': String(first),
    });
    expect(resumed.events.map((e) => [e.id, e.event])).toEqual([
      [String(dispatched), 'run.dispatched'],
      [String(succeeded), 'run.succeeded'],
    ]);
  });

  it("ends a stream at its token's expiry", async () => {
    const relayA = relays[0]?.base ?? (await startRelay());
    const { runId } = await openRun();
    const shortLived = testToken(key, 'ws-a', { ttlSeconds: 2 });
    const stream = await follow(relayA, runId, { authorization: `Bearer ${shortLived}` }, () => Promise.resolve());
    expect(stream.endedByServer).toBe(true);
    expect(stream.text.endsWith(': end credential_expired\n\n')).toBe(true);
  });

  it('ends a cookie stream when its session signs out on another replica', async () => {
    const relayA = relays[0]?.base ?? (await startRelay());
    const { runId } = await openRun();
    const redis = await connectRedis(env.redisUrl, () => undefined);
    const sessions = new SessionStore(redis, env.namespace);
    const { id } = await sessions.create({
      workspaceId: 'ws-a',
      subject: 'test-user',
      tokenId: randomUUID(),
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    const stream = await follow(relayA, runId, { cookie: `${SESSION_COOKIE}=${id}` }, async () => {
      await sessions.delete(id);
      await elsewhere.endSession(id);
    });
    redis.disconnect();
    expect(stream.endedByServer).toBe(true);
    expect(stream.text.endsWith(': end session_ended\n\n')).toBe(true);
  });

  it('a replica started after a revocation refuses the revoked token', async () => {
    const revoked = testToken(key, 'ws-a');
    await elsewhere.revoke(jtiOf(revoked));
    const late = await startRelay();
    const { runId } = await openRun();
    const answer = await readSse(`${late}/runs/${runId}/events`, { authorization: `Bearer ${revoked}` });
    expect([answer.status, (JSON.parse(answer.text) as { code: string }).code]).toEqual([401, 'token_revoked']);
  });
});
