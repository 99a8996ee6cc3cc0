import type { Placement, RunView } from '@wrs/domain';
import { RunCommandHandler } from '@wrs/messaging';
import { containerEngineMissing, describeNeeding, engineContainers, eventsByRun, eventually, RUN_LABEL } from '@wrs/testing';
import type { ContainerProvider } from '../providers/container.provider';
import type { RunProvider, StillWanted } from '../providers/provider';
import { podmanReconcilers, type PodmanReconcilers } from './podman-reconcilers.testing';

const WS = 'ws-cancel-before-start';

/** The real provider, whose submits wait at a gate the test opens: a submit slow to reach the engine (a pull, a busy worker). */
class HeldSubmits implements RunProvider {
  readonly name = 'container';
  readonly takesCredential = false;
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  reached!: () => void;
  readonly arrived = new Promise<void>((resolve) => (this.reached = resolve));
  submitted: Promise<void> | undefined;

  constructor(private readonly real: ContainerProvider) {}

  submit(run: RunView, placement: Placement, credential: string | null, stillWanted?: StillWanted): Promise<void> {
    this.submitted = (async () => {
      this.reached();
      await this.gate;
      await this.real.submit(run, placement, credential, stillWanted);
    })();
    return this.submitted;
  }

  letThrough(): void {
    this.open();
  }

  observe(run: RunView) {
    return this.real.observe(run);
  }
  logs(run: RunView, fromIndex: number) {
    return this.real.logs(run, fromIndex);
  }
  cancel(run: RunView) {
    return this.real.cancel(run);
  }
}

/**
 * The chaos `containers` profile saw runs recorded `canceled` whose containers started after that: one
 * worker's submit was on its way to the engine when another worker confirmed the cancel (it found no
 * container yet), and the submit then created and started it. The submit now asks, once the container
 * exists and before it starts it, whether the run still wants it. Real JetStream, Postgres and Podman.
 */
describeNeeding(containerEngineMissing())('a run canceled while its submit is on the way never starts (real container on Podman)', () => {
  let p: PodmanReconcilers;
  beforeAll(async () => (p = await podmanReconcilers(WS, 'cancel-before-start-test')));
  afterAll(() => p?.close());

  it('the submit finds the cancel recorded, leaves its container unstarted and removes it', async () => {
    const { store, worker, viewOf, errors } = p;
    const tap = await p.tapEngine();
    const runId = await p.createRun(['/bin/sh', '-c', 'sleep 30']);

    // The first worker records the dispatch; its submit waits before it reaches the engine.
    const held = new HeldSubmits(p.provider);
    const submitter = worker(held);
    const sweeping = submitter.sweep();
    await held.arrived;

    // Meanwhile the cancel is requested, and a second worker confirms it: the engine has no container yet.
    await new RunCommandHandler(store).execute(
      WS,
      runId,
      { type: 'CancelRun', requestedBy: 'alice', now: new Date().toISOString() },
      'cancel',
    );
    const canceler = worker();
    await eventually(
      async () => {
        canceler.poke(await viewOf(runId));
        return (await viewOf(runId)).state === 'canceled' ? true : undefined;
      },
      30_000,
      'the cancel to be confirmed',
    );

    // The submit now reaches the engine: it creates the container, and must not start it.
    held.letThrough();
    await held.submitted;
    await sweeping;
    await eventually(
      async () => ((await engineContainers([`${RUN_LABEL}=${runId}`])).length === 0 ? true : undefined),
      20_000,
      'the unstarted container to be removed',
    );
    await Promise.all([submitter.stop(), canceler.stop()]);
    const events = await tap.stop();
    expect({
      created: eventsByRun(events, 'create').get(runId)?.length ?? 0,
      started: eventsByRun(events, 'start').get(runId)?.length ?? 0,
      state: (await viewOf(runId)).state,
      errors,
    }).toEqual({ created: 1, started: 0, state: 'canceled', errors: [] });
  }, 120_000);
});
