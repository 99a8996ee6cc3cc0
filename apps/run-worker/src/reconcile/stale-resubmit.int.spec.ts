import { containerEngineMissing, describeNeeding, engineContainers, eventsByRun, eventually, RUN_LABEL } from '@wrs/testing';
import { podmanReconcilers, type PodmanReconcilers } from './podman-reconcilers.testing';

const WS = 'ws-stale';

/**
 * A second worker (or a sweep) that decides on a projection row older than the run's events must not
 * start a workload again: the chaos `containers` profile saw a run whose container had exited and been
 * released get a second container, started by an observe that found no workload on a stale `starting`
 * row. Real JetStream, Postgres and Podman; the projection is written by hand so that it lags.
 */
describeNeeding(containerEngineMissing())("a stale row never starts a finished run's workload again (real container on Podman)", () => {
  let p: PodmanReconcilers;
  beforeAll(async () => (p = await podmanReconcilers(WS, 'stale-resubmit-test')));
  afterAll(() => p?.close());

  it('a finished run whose projection still says starting gets no second container', async () => {
    const { store, worker, viewOf, projectUntil } = p;
    const tap = await p.tapEngine();
    const runId = await p.createRun(['/bin/sh', '-c', 'echo done']);

    // The first worker dispatches and submits (from the row), then drives the run to its end from its events.
    const first = worker();
    await first.sweep();
    await projectUntil(runId, 'run.dispatched');
    const ended = await eventually(
      async () => {
        first.poke(await viewOf(runId));
        const types = (await store.read(WS, runId)).events.map((e) => e.event.type);
        return types.includes('run.succeeded') ? types : undefined;
      },
      30_000,
      'the run to succeed',
    );
    await eventually(
      async () => ((await engineContainers([`${RUN_LABEL}=${runId}`])).length === 0 ? true : undefined),
      20_000,
      'its container to be released',
    );

    // A second replica sweeps while the projection still holds the `starting` row.
    await worker().sweep();
    const made = eventsByRun(await tap.stop(), 'create').get(runId) ?? [];
    const left = await engineContainers([`${RUN_LABEL}=${runId}`]);
    expect({
      containersCreated: made.length,
      left: left.length,
      events: (await store.read(WS, runId)).events.map((e) => e.event.type),
    }).toEqual({
      containersCreated: 1,
      left: 0,
      events: ended,
    });
  }, 120_000);
});
