import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { SESSION_COOKIE } from '@wrs/auth';
import { connectNats, ensureStreams, StreamNames, TokenRevocations } from '@wrs/messaging';
import { migrate } from '@wrs/persistence';
import { eventually, isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from '../in-process-api.testing';

/**
 * Sign-out tells every relay to end the session's open streams (a JetStream publish) and deletes the
 * session. When the telling fails the answer is a retryable 503, and the session must still be there
 * for the retry to end it: else the retry is a 401 and the streams are never told.
 */
describe('a sign-out that could not tell the relays can be retried', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-sign-out');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let names: StreamNames;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile);
    await api.deps.module.workspaces.ensure('ws-sign-out', 'Sign out');
    nc = await connectNats(env.natsUrl, 'sign-out-retry-test');
    jsm = await jetstreamManager(nc);
    names = new StreamNames(env.namespace);
  });

  afterAll(async () => {
    await nc?.close();
    await api?.close();
    await env.cleanup();
  });

  // First: the next case removes the revocations stream under the api's own reader of it.
  it('a session whose end was published is refused even while its record is still in Redis', async () => {
    const created = await api.client.call('POST /sessions', '/sessions', { token });
    const id = /__Host-wrs_session=([^;]+)/.exec(created.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const headers = { cookie: `${SESSION_COOKIE}=${id}` };
    expect((await api.client.call('GET /sessions/current', '/sessions/current', { headers })).status).toBe(200);
    // What a sign-out whose delete failed leaves: the end published (here by another replica), the record kept.
    const elsewhere = new TokenRevocations(jetstream(nc), jsm, names);
    await elsewhere.endSession(id);
    await eventually(
      async () => {
        const answer = await api.client.call('GET /sessions/current', '/sessions/current', { headers });
        return answer.status === 401 ? answer : undefined;
      },
      10_000,
      'the ended session to be refused',
    );
  });

  it('answers 503 and keeps the session; the retry ends it', async () => {
    const created = await api.client.call('POST /sessions', '/sessions', { token });
    expect(created.status).toBe(201);
    const id = /__Host-wrs_session=([^;]+)/.exec(created.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const csrf = (created.body as { csrfToken: string }).csrfToken;
    const headers = { cookie: `${SESSION_COOKIE}=${id}`, 'x-csrf-token': csrf };
    const signOut = () => api.client.call('DELETE /sessions/current', '/sessions/current', { headers });

    // Where the session ends are published is gone for a moment: the publish has no stream to land in.
    await jsm.streams.delete(names.revocationsStream);
    const failed = await signOut();
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ code: 'dependency_unavailable', retryable: true });
    expect((await api.client.call('GET /sessions/current', '/sessions/current', { headers })).status).toBe(200);

    await ensureStreams(jsm, names);
    const retried = await signOut();
    expect(retried.status).toBe(204);
    expect(retried.headers.get('set-cookie')).toContain(`${SESSION_COOKIE}=;`);
    expect((await api.client.call('GET /sessions/current', '/sessions/current', { headers })).status).toBe(401);
  });
});
