import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { sealSecret } from '@wrs/credentials';
import { fold, toRunView, type Placement, type ProviderOffer, type RunEvent, type RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunCommandHandler, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, ProviderCredentials, RunQueries } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { eventually, isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from '../credential-vault';
import { ALWAYS_WANTED, ProviderError, type LogLine, type Observation, type RunProvider } from '../providers/provider';
import { ProviderRegistry } from '../providers/provider-registry';
import { Reconciler } from '../reconciler';

type SubmitOutcome = 'take' | 'hang' | ProviderError | Error;

function until(condition: () => boolean): Promise<true> {
  return eventually(() => Promise.resolve(condition() ? true : undefined));
}

/**
 * A provider whose answers the test scripts (the place that runs workloads is the external system
 * here; the event store, decider and reconciler are the real ones). It remembers what the run's
 * stream held when each submit arrived, and which workloads it holds.
 */
class ScriptedProvider implements RunProvider {
  readonly held = new Set<string>();
  readonly streamAtSubmit: string[][] = [];
  submits: SubmitOutcome[] = [];
  /** The credential each submit was handed, by run. */
  readonly credentials = new Map<string, string | null>();
  /** A provider that keeps reporting the workload after a cancel (cannot confirm it is gone). */
  stubborn = false;

  constructor(
    readonly name: string,
    private readonly typesOf: (runId: string) => Promise<string[]>,
    readonly takesCredential = false,
  ) {}

  /** Runs whose workloads this provider started, in order (made and then not wanted: not started). */
  readonly started: string[] = [];

  async submit(run: RunView, _placement: Placement, credential: string | null, stillWanted = ALWAYS_WANTED): Promise<void> {
    this.credentials.set(run.runId, credential);
    this.streamAtSubmit.push(await this.typesOf(run.runId));
    const outcome = this.submits.shift() ?? 'take';
    if (outcome === 'hang') {
      await new Promise<void>((resolve) => (this.endHang = resolve)); // a pull that takes minutes
    } else if (outcome !== 'take') {
      throw outcome;
    }
    this.held.add(run.runId);
    if (await stillWanted()) {
      this.started.push(run.runId);
    }
  }

  /** Ends a submit that hangs. */
  endHang: () => void = () => undefined;

  /** A provider that stopped answering: every observe fails. */
  silent = false;

  /** Runs whose workloads have exited 0. */
  readonly exited = new Set<string>();

  observe(run: RunView): Promise<Observation> {
    if (this.silent) {
      return Promise.reject(new Error('connect ECONNREFUSED'));
    }
    if (!this.held.has(run.runId)) {
      return Promise.resolve({ phase: 'lost', reason: 'not here' });
    }
    return Promise.resolve(this.exited.has(run.runId) ? { phase: 'exited', exitCode: 0 } : { phase: 'running' });
  }

  logs(): Promise<LogLine[]> {
    return Promise.resolve([]);
  }

  /** Runs the reconciler asked to stop, in order. */
  readonly canceled: string[] = [];

  cancel(run: RunView): Promise<void> {
    this.canceled.push(run.runId);
    if (!this.stubborn) {
      this.held.delete(run.runId);
    }
    return Promise.resolve();
  }
}

/** The reconciler's steps against real JetStream and Postgres, each run driven by hand on a clock the test moves. */
describe('reconciler steps: intent before effect, refusals, re-submits, confirmed cancels', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let handler: RunCommandHandler;
  let reconciler: Reconciler;
  let now = Date.parse('2026-11-25T08:00:00.000Z');
  const errors: unknown[] = [];
  const typesOf = async (runId: string): Promise<string[]> => (await store.read('ws', runId)).events.map((e) => e.event.type);
  const first = new ScriptedProvider('first', typesOf);
  const second = new ScriptedProvider('second', typesOf);
  /** Takes the workspace's stored key, as the Kubernetes provider does. */
  const keyed = new ScriptedProvider('keyed', typesOf, true);
  const kek = generateKeyPairSync('x25519');
  const offers: ProviderOffer[] = [
    { provider: 'first', regions: ['r1'], priority: 0 },
    { provider: 'second', regions: ['r1'], priority: 1 },
  ];
  /** The test's own reconciler also offers 'keyed', last, so `auto` never picks it. */
  const withKeyed: ProviderOffer[] = [...offers, { provider: 'keyed', regions: ['r1'], priority: 2 }];
  const UNRESPONSIVE_MS = 60_000;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'reconcile-steps-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    handler = new RunCommandHandler(store);
    reconciler = replica(withKeyed);
  });

  /** A reconciler on the same store and providers, with its own memory: the test's own, or another replica. */
  function replica(withOffers: ProviderOffer[] = offers, intervalMs = 60_000, commands: RunCommandHandler = handler): Reconciler {
    return new Reconciler(
      new RunQueries(db),
      commands,
      new ProviderRegistry([first, second, keyed]),
      withOffers,
      new CredentialVault(new ProviderCredentials(db), new Map([['k1', kek.privateKey]])),
      {
        intervalMs,
        maxObserveIntervalMs: intervalMs,
        batchSize: 10,
        unresponsiveAfterMs: UNRESPONSIVE_MS,
        onError: (error) => errors.push(error),
      },
      () => new Date(now),
    );
  }

  afterAll(async () => {
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  beforeEach(() => {
    first.submits = [];
    second.submits = [];
    first.stubborn = false;
    first.silent = false;
    errors.length = 0;
  });

  async function viewOf(runId: string): Promise<RunView> {
    const { events, version } = await store.read('ws', runId);
    const state = fold(events.map((e) => e.event));
    if (!state) {
      throw new Error('no run');
    }
    return toRunView(state, version);
  }

  async function createdRun(provider = 'auto', deadline?: string, timeoutSeconds?: number): Promise<string> {
    const runId = randomUUID();
    const created: RunEvent = {
      type: 'run.created',
      data: {
        runId,
        workspaceId: 'ws',
        workload: { image: 'busybox', ...(timeoutSeconds ? { timeoutSeconds } : {}) },
        provider,
        region: 'auto',
        idempotencyKey: randomUUID(),
        ...(deadline ? { deadline } : {}),
        at: new Date(now).toISOString(),
      },
    };
    await store.append('ws', runId, [created], 0, 'create');
    return runId;
  }

  /** A run dispatched (one drive), taken by the first provider, and started (the next drive). */
  async function startedRun(): Promise<string> {
    return startedRunWithDeadline(undefined);
  }

  async function startedRunWithDeadline(deadline: string | undefined, timeoutSeconds?: number): Promise<string> {
    const runId = await createdRun('auto', deadline, timeoutSeconds);
    await driveUntil(runId, 2);
    // Poked until started: a poke while the first drive still holds the run is a no-op.
    const types = await eventually(async () => {
      reconciler.poke(await viewOf(runId));
      const seen = await typesOf(runId);
      return seen.length >= 3 ? seen : undefined;
    });
    expect(types).toEqual(['run.created', 'run.dispatched', 'run.started']);
    return runId;
  }

  /** Drives the run once on its current events and waits until its stream has `count` events. */
  async function driveUntil(runId: string, count: number): Promise<string[]> {
    reconciler.poke(await viewOf(runId));
    return eventually(async () => {
      const types = await typesOf(runId);
      return types.length >= count ? types : undefined;
    });
  }

  it('records where the run goes before the provider sees it', async () => {
    const runId = await createdRun();
    const submitsBefore = first.streamAtSubmit.length;
    expect(await driveUntil(runId, 2)).toEqual(['run.created', 'run.dispatched']);
    await until(() => first.held.has(runId));
    expect(first.streamAtSubmit[submitsBefore]).toEqual(['run.created', 'run.dispatched']);
  });

  it("hands the workspace's stored key only to a provider that takes one: none is read for another", async () => {
    const store = async (provider: string, kekId: string, secret: string): Promise<void> => {
      const id = randomUUID();
      const { publicKey } = kekId === 'k1' ? kek : generateKeyPairSync('x25519');
      await new ProviderCredentials(db).add({
        id,
        workspaceId: 'ws',
        provider,
        region: null,
        fingerprint: `fp-${id}`,
        lastFour: secret.slice(-4),
        sealed: sealSecret(secret, { id: kekId, publicKey }, `ws/${id}`),
      });
    };
    // A key for 'first' that this worker cannot open: reading it would fail the submit.
    await store('first', 'k-elsewhere', 'first-secret');
    await store('keyed', 'k1', 'keyed-secret');
    const unkeyed = await createdRun('first');
    await driveUntil(unkeyed, 2);
    await until(() => first.held.has(unkeyed));
    expect(first.credentials.get(unkeyed)).toBeNull();
    const withKey = await createdRun('keyed');
    await driveUntil(withKey, 2);
    await until(() => keyed.held.has(withKey));
    expect(keyed.credentials.get(withKey)).toBe('keyed-secret');
    expect(errors).toEqual([]);
  });

  it('a certain refusal queues the run again and the next candidate takes it, the refusal recorded', async () => {
    const runId = await createdRun();
    first.submits = [new ProviderError('provider_error', 'engine said no')];
    const types = await driveUntil(runId, 4);
    expect(types).toEqual(['run.created', 'run.dispatched', 'run.dispatch_refused', 'run.dispatched']);
    await until(() => second.held.has(runId));
    const run = await viewOf(runId);
    expect(run.placement).toMatchObject({
      provider: 'second',
      failovers: [{ provider: 'first', code: 'provider_error', message: 'engine said no' }],
    });
  });

  it('a missing image fails the run at once', async () => {
    const runId = await createdRun();
    first.submits = [new ProviderError('image_not_found', 'no such image')];
    expect(await driveUntil(runId, 3)).toEqual(['run.created', 'run.dispatched', 'run.failed']);
    expect((await viewOf(runId)).failure).toEqual({ code: 'image_not_found', message: 'no such image' });
  });

  it('an unclear submit leaves the run starting; observing it submits again', async () => {
    const runId = await createdRun();
    first.submits = [new Error('socket hang up')];
    await driveUntil(runId, 2);
    await until(() => errors.length > 0);
    expect(first.held.has(runId)).toBe(false);
    expect((await viewOf(runId)).state).toBe('starting');
    // The next drive observes no workload while starting, inside the bound: it submits again.
    reconciler.poke(await viewOf(runId));
    await until(() => first.held.has(runId));
    expect(await driveUntil(runId, 3)).toEqual(['run.created', 'run.dispatched', 'run.started']);
  });

  it('a run dispatched but never submitted is failed once the bound has passed, not submitted forever', async () => {
    const runId = await createdRun();
    first.submits = [new Error('socket hang up')];
    await driveUntil(runId, 2);
    await until(() => errors.length > 0);
    now += UNRESPONSIVE_MS + 1;
    expect(await driveUntil(runId, 3)).toEqual(['run.created', 'run.dispatched', 'run.failed']);
    expect((await viewOf(runId)).failure?.code).toBe('provider_lost');
  });

  it('a run its provider never answers for fails provider_error after the bound, not provider_lost', async () => {
    const runId = await createdRun();
    first.submits = [new Error('socket hang up')];
    first.silent = true;
    await driveUntil(runId, 2);
    await until(() => errors.length > 0);
    reconciler.poke(await viewOf(runId)); // the observe fails too: the provider has been silent since the submit
    await until(() => errors.length > 1);
    now += UNRESPONSIVE_MS + 1;
    expect(await driveUntil(runId, 3)).toEqual(['run.created', 'run.dispatched', 'run.failed']);
    expect((await viewOf(runId)).failure).toMatchObject({ code: 'provider_error', message: expect.stringContaining('has not answered') });
  });

  it('a running workload past timeoutSeconds is stopped and fails timed_out; one that exited first, seen late, succeeds', async () => {
    const overrun = await startedRunWithDeadline(undefined, 60);
    const finished = await startedRunWithDeadline(undefined, 60);
    first.exited.add(finished); // it exited 0 within its limit; the worker was down and looks 61 s on
    now += 61_000;
    const started = ['run.created', 'run.dispatched', 'run.started'];
    expect(await driveUntil(overrun, 4)).toEqual([...started, 'run.failed']);
    expect((await viewOf(overrun)).failure).toEqual({ code: 'timed_out', message: 'the workload ran longer than 60 s' });
    expect(first.canceled).toContain(overrun);
    expect(await driveUntil(finished, 4)).toEqual([...started, 'run.succeeded']);
    expect(first.canceled).not.toContain(finished);
  });

  it('a run no candidate can take now waits, says why once, and is placed when a place frees', async () => {
    const runId = await createdRun();
    const full = replica(offers.map((o) => ({ ...o, capacity: 0 })));
    full.poke(await viewOf(runId));
    await eventually(async () => ((await typesOf(runId)).length === 2 ? true : undefined));
    expect(await typesOf(runId)).toEqual(['run.created', 'run.waiting']);
    expect((await viewOf(runId)).waiting).toMatchObject({
      reason: 'no_capacity',
      message: expect.stringContaining('first/r1: no_capacity'),
    });
    // Tried again: the reason is the same, so nothing is recorded.
    const version = (await viewOf(runId)).version;
    full.poke(await viewOf(runId));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await viewOf(runId)).version).toBe(version);
    await full.stop();
    // With room (the test's usual offers), it is placed and no longer waits.
    expect(await driveUntil(runId, 3)).toEqual(['run.created', 'run.waiting', 'run.dispatched']);
    expect((await viewOf(runId)).waiting).toBeNull();
  });

  it('a queued run past its deadline is canceled without starting; a running one is stopped, both deadline_exceeded', async () => {
    const queued = await createdRun('auto', new Date(now - 1).toISOString());
    expect(await driveUntil(queued, 2)).toEqual(['run.created', 'run.canceled']);
    expect((await viewOf(queued)).cancellation).toMatchObject({ requestedBy: 'system', reason: 'deadline_exceeded' });
    expect(first.held.has(queued) || second.held.has(queued)).toBe(false); // never submitted

    const running = await startedRunWithDeadline(new Date(now + 60_000).toISOString());
    now += 60_001;
    expect(await driveUntil(running, 4)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.cancel_requested']);
    expect(await driveUntil(running, 5)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.cancel_requested', 'run.canceled']);
    expect((await viewOf(running)).cancellation).toMatchObject({ reason: 'deadline_exceeded' });
    expect(first.held.has(running)).toBe(false);
  });

  it('two replicas placing one run in two places at once: one placement is recorded, and only its writer submits', async () => {
    const runId = await createdRun();
    const queued = await viewOf(runId);
    // The other replica ranks `second` first (its health or load view differs).
    const other = replica(offers.map((o) => ({ ...o, priority: o.provider === 'second' ? 0 : 1 })));
    reconciler.poke(queued);
    other.poke(queued);
    await until(() => first.held.has(runId) || second.held.has(runId));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.stop();
    const types = await typesOf(runId);
    expect(types.filter((t) => t === 'run.dispatched')).toHaveLength(1);
    const placed = (await viewOf(runId)).placement!.provider;
    expect([first.held.has(runId), second.held.has(runId)]).toEqual([placed === 'first', placed === 'second']);
  });

  it('runs placed at once never take more places than a capacity allows: the rest wait', async () => {
    const runIds = await Promise.all([createdRun(), createdRun(), createdRun()]);
    const small = replica(offers.map((o) => ({ ...o, capacity: 1 })));
    const views = await Promise.all(runIds.map(viewOf));
    views.forEach((view) => small.poke(view)); // three dispatches share one load count from Postgres
    await eventually(async () => ((await Promise.all(runIds.map(typesOf))).every((types) => types.length === 2) ? true : undefined));
    await small.stop();
    const outcomes = await Promise.all(
      runIds.map(async (id) => (await viewOf(id)).placement?.provider ?? (await viewOf(id)).waiting?.reason),
    );
    expect(outcomes.sort()).toEqual(['first', 'no_capacity', 'second']);
  });

  it("a run whose placement's append failed is placed again: its own earlier reservation does not hold the only place", async () => {
    const runId = await createdRun();
    let failures = 1;
    /** The append of the first placement fails as a timed-out JetStream request would, after the reservation. */
    const flaky = new (class extends RunCommandHandler {
      override async execute(...args: Parameters<RunCommandHandler['execute']>): ReturnType<RunCommandHandler['execute']> {
        if (args[2].type === 'DispatchRun' && failures-- > 0) {
          throw new Error('the append timed out');
        }
        return super.execute(...args);
      }
    })(store);
    const onePlace = replica([{ provider: 'first', regions: ['r1'], priority: 0, capacity: 1 }], 60_000, flaky);
    onePlace.poke(await viewOf(runId));
    await until(() => errors.some((e) => String(e).includes('the append timed out')));
    expect(await typesOf(runId)).toEqual(['run.created']);
    // The same replica, so its reservation from the failed drive is still held. Poked while queued: a poke
    // while the failed drive still holds the run drives nothing now (and once placed, a poke would observe).
    const types = await eventually(async () => {
      const view = await viewOf(runId);
      if (view.state === 'queued') {
        onePlace.poke(view);
      }
      const seen = await typesOf(runId);
      return seen.length >= 2 ? seen : undefined;
    });
    await onePlace.stop();
    expect(types.slice(0, 2)).toEqual(['run.created', 'run.dispatched']);
    expect(types).not.toContain('run.waiting');
    expect((await viewOf(runId)).placement).toMatchObject({ provider: 'first', region: 'r1' });
  });

  it('a replica holding a row from before a cancel does not submit the canceled run again', async () => {
    const runId = await createdRun();
    await driveUntil(runId, 2);
    await until(() => first.held.has(runId));
    const stale = await viewOf(runId); // starting
    await handler.execute('ws', runId, { type: 'CancelRun', requestedBy: 'alice', now: new Date(now).toISOString() }, 'cancel');
    expect(await driveUntil(runId, 4)).toEqual(['run.created', 'run.dispatched', 'run.cancel_requested', 'run.canceled']);
    expect(first.held.has(runId)).toBe(false);
    const submits = first.streamAtSubmit.length;
    const other = replica();
    other.poke(stale); // observes no workload while "starting": would submit again on the row alone
    await other.stop();
    expect(first.streamAtSubmit.length).toBe(submits);
    expect(first.held.has(runId)).toBe(false);
  });

  it('a submit that ends after the run was canceled never starts its workload, and removes what it made', async () => {
    const runId = await createdRun();
    first.submits = ['hang'];
    await driveUntil(runId, 2); // dispatched; the submit hangs (a long pull)
    await handler.execute('ws', runId, { type: 'CancelRun', requestedBy: 'alice', now: new Date(now).toISOString() }, 'cancel');
    const other = replica();
    other.poke(await viewOf(runId)); // canceling: the provider holds nothing yet, so the cancel is confirmed
    await eventually(async () => ((await viewOf(runId)).state === 'canceled' ? true : undefined));
    await other.stop();
    const cancelsBefore = first.canceled.filter((id) => id === runId).length;
    first.endHang(); // the pull ends: the container is created now, and the submitter sees it is late
    await until(() => first.canceled.filter((id) => id === runId).length > cancelsBefore);
    expect({ held: first.held.has(runId), started: first.started.includes(runId) }).toEqual({ held: false, started: false });
  });

  it('a sweep goes on after one interval while a drive hangs: a slow submit holds only its own run', async () => {
    const runId = await createdRun();
    const { events } = await store.read('ws', runId);
    const projection = new RunProjection(db);
    for (const { seq, event } of events) {
      await projection.project(runId, seq, event);
    }
    const sweeper = replica(offers, 200);
    first.submits = ['hang'];
    const submitsBefore = first.streamAtSubmit.length;
    const swept = sweeper.sweep();
    await until(() => first.streamAtSubmit.length > submitsBefore);
    await expect(swept).resolves.toBeUndefined();
    expect(first.held.has(runId)).toBe(false); // still submitting
    first.endHang();
    await until(() => first.held.has(runId));
    await sweeper.stop();
  });

  it('a cancel is recorded done only once the provider no longer has the workload', async () => {
    const runId = await startedRun();
    await handler.execute('ws', runId, { type: 'CancelRun', requestedBy: 'alice', now: new Date(now).toISOString() }, 'cancel');
    expect(await driveUntil(runId, 5)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.cancel_requested', 'run.canceled']);
    expect(first.held.has(runId)).toBe(false);
  });

  it('a cancel the provider never confirms stays canceling, then fails cancel_unconfirmed after the bound', async () => {
    const runId = await startedRun();
    first.stubborn = true;
    await handler.execute('ws', runId, { type: 'CancelRun', requestedBy: 'alice', now: new Date(now).toISOString() }, 'cancel');
    reconciler.poke(await viewOf(runId));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await viewOf(runId)).state).toBe('canceling');
    now += UNRESPONSIVE_MS + 1;
    expect(await driveUntil(runId, 5)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.cancel_requested', 'run.failed']);
    expect((await viewOf(runId)).failure?.code).toBe('cancel_unconfirmed');
    expect(first.held.has(runId)).toBe(true);
  });
});
