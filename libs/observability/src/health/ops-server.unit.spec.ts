import { startOpsServer, type OpsServer } from './ops-server';
import type { DependencyCheck } from './dependency-check';

/** The operator port on loopback, with dependency checks whose answers the test decides. */
describe('operator port: liveness, readiness, metrics', () => {
  let ops: OpsServer;
  let draining = false;
  const answers: Record<string, 'up' | 'down' | 'hang'> = { nats: 'up', postgres: 'up', redis: 'up' };
  const check = (name: string, optional = false): DependencyCheck => ({
    name,
    optional,
    probe: () =>
      answers[name] === 'up'
        ? Promise.resolve()
        : answers[name] === 'down'
          ? Promise.reject(new Error('ECONNREFUSED'))
          : new Promise(() => undefined),
  });
  const get = async (path: string): Promise<{ status: number; body: unknown; type: string | null }> => {
    // The operator server, not the API: no contract operation to hold it to.
    const res = await fetch(`${ops.url}${path}`);
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type'), body: path === '/metrics' ? text : JSON.parse(text) };
  };

  beforeAll(async () => {
    ops = await startOpsServer({
      service: 'test',
      port: 0,
      host: '127.0.0.1',
      checks: [check('nats'), check('postgres'), check('redis', true)],
      draining: () => draining,
      nestLogger: false,
    });
  });

  afterAll(() => ops.close());

  it('is ready when every dependency answers', async () => {
    expect(await get('/health/ready')).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        info: { lifecycle: { status: 'up' }, nats: { status: 'up' }, postgres: { status: 'up' }, redis: { status: 'up' } },
      },
    });
  });

  it('is unready (503, naming the dependency) when a required one is down or does not answer in time, but stays alive', async () => {
    answers['postgres'] = 'down';
    answers['nats'] = 'hang';
    const ready = await get('/health/ready');
    expect(ready).toMatchObject({
      status: 503,
      body: { status: 'error', error: { postgres: { status: 'down', message: 'ECONNREFUSED' }, nats: { status: 'down' } } },
    });
    expect((ready.body as { error: { nats: { message: string } } }).error.nats.message).toMatch(/no answer within/);
    expect(await get('/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
    answers['postgres'] = 'up';
    answers['nats'] = 'up';
  });

  it('stays ready when an optional dependency (Redis, which the service fails open without) is down, and says so', async () => {
    answers['redis'] = 'down';
    expect(await get('/health/ready')).toMatchObject({ status: 200, body: { info: { redis: { status: 'up', reachable: false } } } });
    answers['redis'] = 'up';
  });

  it('is unready while draining', async () => {
    draining = true;
    expect(await get('/health/ready')).toMatchObject({ status: 503, body: { error: { lifecycle: { status: 'down', draining: true } } } });
    draining = false;
  });

  it('serves Prometheus text with the process metrics and the service label', async () => {
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain;.*version=0\.0\.4/);
    expect(metrics.body).toMatch(/^process_cpu_user_seconds_total\{service="test"\} /m);
    expect(metrics.body).toMatch(/^# TYPE wrs_http_request_duration_seconds histogram$/m);
  });
});
