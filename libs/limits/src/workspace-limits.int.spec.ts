import { migrate, openDatabase, Workspaces } from '@wrs/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@wrs/testing';
import type { DataSource } from 'typeorm';
import { EffectiveLimits, type WorkspaceLimits } from './workspace-limits';

/** The real store, counting the reads it is asked for. */
class CountedWorkspaces extends Workspaces {
  reads = 0;

  override limitsOf(id: string): Promise<Record<string, unknown> | null> {
    this.reads++;
    return super.limitsOf(id);
  }
}

const DEFAULTS: WorkspaceLimits = { requestsPerMinute: 600, tokenRequestsPerMinute: 300, maxActiveRuns: 50, maxEventStreams: 20 };

describe('EffectiveLimits: one read of a workspace’s limits however many requests ask at once', () => {
  let env: IsolatedEnvironment;
  let db: DataSource;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    db = await openDatabase(env.database);
  });

  afterAll(async () => {
    await db.destroy();
    await env.cleanup();
  });

  it('shares one read among the requests that ask while it runs, and reads again once it is over and expired', async () => {
    const workspaces = new CountedWorkspaces(db);
    await workspaces.ensure('ws-limits', 'Limits');
    await workspaces.setLimits('ws-limits', { maxActiveRuns: 7 });
    const limits = new EffectiveLimits(workspaces, DEFAULTS, 0); // every answer expires at once
    const answers = await Promise.all(Array.from({ length: 20 }, () => limits.for('ws-limits')));
    expect(workspaces.reads).toBe(1);
    expect(new Set(answers.map((a) => a.maxActiveRuns))).toEqual(new Set([7]));
    expect(answers[0]).toEqual({ ...DEFAULTS, maxActiveRuns: 7 });
    // A change is seen by the next read: nothing holds on to the shared one.
    await workspaces.setLimits('ws-limits', { maxActiveRuns: 9 });
    expect((await limits.for('ws-limits')).maxActiveRuns).toBe(9);
    expect(workspaces.reads).toBe(2);
  });

  it('reads each workspace for itself, and a missing one has the defaults', async () => {
    const workspaces = new CountedWorkspaces(db);
    await workspaces.ensure('ws-a', 'A');
    await workspaces.setLimits('ws-a', { maxEventStreams: 3 });
    const limits = new EffectiveLimits(workspaces, DEFAULTS, 60_000);
    const [a, missing, againA] = await Promise.all([limits.for('ws-a'), limits.for('ws-missing'), limits.for('ws-a')]);
    expect(a.maxEventStreams).toBe(3);
    expect(againA).toEqual(a);
    expect(missing).toEqual(DEFAULTS);
    expect(workspaces.reads).toBe(2);
    // Cached within the time to live: no read.
    await limits.for('ws-a');
    expect(workspaces.reads).toBe(2);
  });
});
