import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Placement, ProviderOffer, RunEvent, RunView } from '@wrs/domain';
import { connectNats, ensureStreams, RunCommandHandler, RunEventStore, StreamNames } from '@wrs/messaging';
import { migrate, openDatabase, ProviderCredentials, RunQueries } from '@wrs/persistence';
import { RunProjection } from '@wrs/projection';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { CredentialVault } from '../credential-vault';
import type { LogLine, Observation, RunProvider } from '../providers/provider';
import { ProviderRegistry } from '../providers/provider-registry';
import { Reconciler } from '../reconciler';

/**
 * A place that runs workloads (the external system here; the event store, projection and reconciler are
 * the real ones): every workload runs quietly until the test ends it, and each look is counted.
 */
class QuietProvider implements RunProvider {
  readonly name = 'quiet';
  readonly takesCredential = false;
  readonly looks = new Map<string, number>();
  readonly exited = new Set<string>();
  private changed: ((runId: string) => void) | undefined;
  watching = 0;

  submit(_run: RunView, _placement: Placement): Promise<void> {
    return Promise.resolve();
  }

  observe(run: RunView): Promise<Observation> {
    this.looks.set(run.runId, (this.looks.get(run.runId) ?? 0) + 1);
    return Promise.resolve(this.exited.has(run.runId) ? { phase: 'exited', exitCode: 0 } : { phase: 'running' });
  }

  logs(): Promise<LogLine[]> {
    return Promise.resolve([]);
  }

  cancel(): Promise<void> {
    return Promise.resolve();
  }

  watch(changed: (runId: string) => void): () => void {
    this.changed = changed;
    this.watching++;
    return () => {
      this.changed = undefined;
      this.watching--;
    };
  }

  /** The workload exits, and the provider says so unasked (as the container engine's events do). */
  exit(runId: string): void {
    this.exited.add(runId);
    this.changed?.(runId);
  }
}

/** The reconciler's sweeps on a clock the test moves, against real JetStream and Postgres. */
describe('reconciler: every unfinished run is looked at, a quiet one less and less often, a changed one at once', () => {
  let env: IsolatedEnvironment;
  let nc: NatsConnection;
  let db: DataSource;
  let store: RunEventStore;
  let projection: RunProjection;
  let now = Date.parse('2026-11-26T08:00:00.000Z');
  const provider = new QuietProvider();
  const offers: ProviderOffer[] = [{ provider: 'quiet', regions: ['r1'], priority: 0 }];
  const errors: unknown[] = [];

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
    nc = await connectNats(env.natsUrl, 'observe-backoff-test');
    const names = new StreamNames(env.namespace);
    const jsm = await jetstreamManager(nc);
    await ensureStreams(jsm, names);
    store = new RunEventStore(jetstream(nc), jsm, names);
    projection = new RunProjection(db);
  });

  afterAll(async () => {
    await nc.close();
    await db.destroy();
    await env.cleanup();
  });

  function reconcilerOf(batchSize: number): Reconciler {
    return new Reconciler(
      new RunQueries(db),
      new RunCommandHandler(store),
      new ProviderRegistry([provider]),
      offers,
      new CredentialVault(new ProviderCredentials(db), new Map()),
      { intervalMs: 200, maxObserveIntervalMs: 1_600, batchSize, unresponsiveAfterMs: 600_000, onError: (e) => errors.push(e) },
      () => new Date(now),
    );
  }

  /** A run started on the quiet provider, its events projected (what a sweep reads). */
  async function runningRun(deadline?: string): Promise<string> {
    const runId = randomUUID();
    const at = new Date(now).toISOString();
    const placement = { provider: 'quiet', region: 'r1', reason: 'test', candidates: [] };
    const events: RunEvent[] = [
      {
        type: 'run.created',
        data: {
          runId,
          workspaceId: 'ws',
          workload: { image: 'img' },
          provider: 'quiet',
          region: 'r1',
          idempotencyKey: randomUUID(),
          ...(deadline ? { deadline } : {}),
          at,
        },
      },
      { type: 'run.dispatched', data: { placement, at } },
      { type: 'run.started', data: { at } },
    ] as RunEvent[];
    await store.append('ws', runId, events, 0, 'test');
    let previous = 0;
    for (const { seq, event } of (await store.read('ws', runId)).events) {
      await projection.project(runId, seq, event, previous);
      previous = seq;
    }
    return runId;
  }

  async function typesOf(runId: string): Promise<string[]> {
    return (await store.read('ws', runId)).events.map((e) => e.event.type);
  }

  it('walks past a full page of older runs, and backs off quiet ones: 5 runs, pages of 2, 60 sweeps', async () => {
    const runIds = [];
    for (let i = 0; i < 5; i++) {
      runIds.push(await runningRun());
      now += 1; // each later run changed later: the two oldest fill the first page
    }
    const reconciler = reconcilerOf(2);
    for (let sweep = 0; sweep < 60; sweep++) {
      await reconciler.sweep();
      now += 200;
    }
    await reconciler.stop();
    expect(errors).toEqual([]);
    // 12 s of sweeps: each run is reached every third sweep (600 ms), and looked at when due, its gap
    // doubling from 200 ms to 1.6 s. Every sweep looking at the first page's runs would be 60 looks each
    // and none for the others.
    for (const runId of runIds) {
      const looks = provider.looks.get(runId) ?? 0;
      expect(looks).toBeGreaterThanOrEqual(5);
      expect(looks).toBeLessThanOrEqual(12);
    }
  });

  it("a quiet run backed off to the longest gap is looked at on the next sweep when its provider says it changed, even off this sweep's page", async () => {
    const older = await runningRun();
    now += 1;
    const runId = await runningRun();
    const reconciler = reconcilerOf(1);
    reconciler.start(); // subscribes to the provider's watch; its timer's sweeps change nothing here (the clock stands still)
    expect(provider.watching).toBe(1);
    for (let sweep = 0; sweep < 40; sweep++) {
      await reconciler.sweep();
      now += 200;
    }
    const looks = provider.looks.get(runId) ?? 0;
    // At the longest gap: the next sweeps do not look at it.
    await reconciler.sweep();
    await reconciler.sweep();
    expect(provider.looks.get(runId)).toBe(looks);
    provider.exit(runId);
    // One sweep, whichever page the walk is on: the woken run is read by id and driven to its end.
    await reconciler.sweep();
    await reconciler.stop();
    expect(provider.watching).toBe(0);
    expect(await typesOf(runId)).toEqual(['run.created', 'run.dispatched', 'run.started', 'run.succeeded']);
    expect(await typesOf(older)).toEqual(['run.created', 'run.dispatched', 'run.started']);
    expect(errors).toEqual([]);
  });

  it("a quiet run's deadline is kept while more runs than a page keep changing between sweeps", async () => {
    // What the earlier tests left is finished, so the walk holds only these runs.
    await db.query(`UPDATE runs SET terminal = true`);
    const quiet = await runningRun(new Date(now + 1_000).toISOString());
    now += 1;
    const busy = [await runningRun(), await runningRun()];
    const reconciler = reconcilerOf(2);
    for (let sweep = 0; sweep < 30; sweep++) {
      await reconciler.sweep();
      now += 200;
      // What the projection does to runs that keep writing log lines: each change moves the row ahead.
      await db.query(`UPDATE runs SET updated_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [busy]);
    }
    await reconciler.stop();
    expect(await typesOf(quiet)).toContain('run.cancel_requested');
    expect(errors).toEqual([]);
  });
});
