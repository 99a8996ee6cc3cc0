import { randomUUID } from 'node:crypto';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  EngineEventTap,
  OWNER_LABEL,
  RUN_LABEL,
  containerEngineMissing,
  describeNeeding,
  engineContainers,
  engineRemove,
  engineSend,
  eventsByRun,
  eventually,
  patience,
  readSse,
} from '@wrs/testing';
import { startStack } from './stack-fixture';

const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);
const COMMAND = ['/bin/sh', '-c', 'echo done'];

/**
 * A worker killed inside the provider's submit, between the container's create and its start (the
 * chaos `containers` profile found it): the run's dispatch is recorded and its container exists,
 * never started. The worker that comes back must start it, not wait on it forever.
 */
describeNeeding(containerEngineMissing())(
  "a submit killed between the container's create and its start (real containers, Podman here)",
  () => {
    it(
      'the container is started once the worker is back, and the run ends succeeded with its output; no second container',
      async () => {
        const f = await startStack(['ws-half'], {
          CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET,
          PROVIDERS_JSON: PROVIDERS,
          FAILPOINT: 'worker.before-submit',
        });
        const tap = new EngineEventTap(f.env.namespace);
        try {
          const token = f.token('ws-half');
          await tap.start();
          const res = await f.client.call('POST /runs', '/runs', {
            token,
            headers: { 'idempotency-key': randomUUID() },
            body: { workload: { image: CONTAINER_IMAGE, command: COMMAND }, provider: 'container', region: 'auto' },
          });
          expect(res.status).toBe(201);
          const id = (res.body as { id: string }).id;
          await eventually(
            () => Promise.resolve(f.stack.processes.get('run-worker')?.signalCode === 'SIGKILL' ? true : undefined),
            20_000,
            'the worker to die before its submit',
          );
          // From the stream itself: the projection is the dead worker's, and behind.
          const sofar = await readSse(
            `${f.stack.baseUrl}/runs/${id}/events`,
            { authorization: `Bearer ${token}` },
            { until: (es) => es.some((e) => e.event === 'run.dispatched'), timeoutMs: 20_000 },
          );
          expect(sofar.events.map((e) => e.event)).toEqual(['run.created', 'run.dispatched']);
          // The worker that comes back must find the run `starting` in its projection (else it may take the
          // dispatch path instead): a worker still armed, without sweeps (a sweep may read the row before its
          // projection commits), projects the dispatch, then dies at its first submit.
          await eventually(
            async () => {
              const worker = f.stack.processes.get('run-worker');
              if (worker?.exitCode !== null || worker.signalCode !== null) {
                f.stack.startService('run-worker', { FAILPOINT: 'worker.before-submit', RECONCILE_INTERVAL_MS: '60000' });
              }
              const got = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
              return (got.body as { state: string }).state === 'starting' ? true : undefined;
            },
            30_000,
            'the projection to show the run dispatched',
          );
          await f.stack.kill('run-worker');

          // What the killed submit would have left: the run's container, as the provider makes it, created and not started.
          await engineSend('POST', `/containers/create?name=wrs-${id}`, {
            Image: CONTAINER_IMAGE,
            Entrypoint: COMMAND,
            Labels: { [RUN_LABEL]: id, 'io.workload-run-service.workspace': 'ws-half', [OWNER_LABEL]: f.env.namespace },
            HostConfig: { NetworkMode: 'none' },
          });
          f.stack.startService('run-worker', { FAILPOINT: '' });
          await f.stack.waitUntilServing('run-worker');

          const { events } = await readSse(
            `${f.stack.baseUrl}/runs/${id}/events`,
            { authorization: `Bearer ${token}` },
            { timeoutMs: 60_000 },
          );
          const types = events.map((e) => e.event);
          const lines = events
            .filter((e) => e.event === 'run.log')
            .map((e) => (JSON.parse(e.data) as { data: { line: string } }).data.line);
          const creations = eventsByRun(await tap.stop(), 'create').get(id) ?? [];
          expect({ end: types.at(-1), lines, containersCreated: creations.length }).toEqual({
            end: 'run.succeeded',
            lines: ['done'],
            containersCreated: 1,
          });
        } finally {
          await tap.close();
          await f.stop();
          // The container this test made, if the worker never took it over, stays on a shared engine otherwise.
          for (const c of await engineContainers([`${OWNER_LABEL}=${f.env.namespace}`])) {
            await engineRemove(c.id);
          }
        }
      },
      patience(240_000),
    );
  },
);
