import { randomUUID } from 'node:crypto';
import {
  CONTAINER_IMAGE,
  CONTAINER_SOCKET,
  OWNER_LABEL,
  RUN_LABEL,
  containerEngineMissing,
  describeNeeding,
  EngineEventTap,
  engineContainers,
  eventsByRun,
  eventually,
  isLive,
  patience,
  readSse,
} from '@wrs/testing';
import { startStack, type StackFixture } from './stack-fixture';

/** Runs cancelled at a random moment 0-500 ms after their create: many land around the dispatch. */
const RACED = 50;
/** Runs cancelled once running (the ordinary path: kill, confirm, release). */
const RUNNING = 10;
const PROVIDERS = JSON.stringify([{ provider: 'container', regions: ['local'], priority: 0 }]);

/**
 * Issue #20 item 1 on a real engine: a cancel stops the workload itself, whenever it lands. The stray
 * cleanup keeps its default interval (30 s), so what is checked here is the cancel's own work, not the
 * safety net's.
 */
describeNeeding(containerEngineMissing())('a cancel stops the workload whenever it lands (real containers, Podman here)', () => {
  let f: StackFixture;
  let token: string;
  let tap: EngineEventTap | undefined;

  beforeAll(async () => {
    f = await startStack(['ws-cancel'], { CONTAINER_ENGINE_SOCKET: CONTAINER_SOCKET, PROVIDERS_JSON: PROVIDERS });
    token = f.token('ws-cancel');
  });

  afterAll(async () => {
    await tap?.close();
    await f?.stop();
  });

  const create = async (): Promise<string> => {
    const res = await f.client.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: CONTAINER_IMAGE, command: ['/bin/sh', '-c', 'sleep 300'] }, provider: 'container', region: 'auto' },
    });
    expect(res.status).toBe(201);
    return (res.body as { id: string }).id;
  };
  const cancel = async (id: string): Promise<void> => {
    expect((await f.client.call('POST /runs/{runId}:cancel', `/runs/${id}:cancel`, { token })).status).toBe(202);
  };
  const stateOf = async (id: string): Promise<string> => {
    const res = await f.client.call('GET /runs/{runId}', `/runs/${id}`, { token });
    expect(res.status).toBe(200);
    return (res.body as { state: string }).state;
  };
  /** Every event of a run that has ended (the stream replays them and closes at the terminal one). */
  const eventsOf = async (id: string): Promise<{ type: string; data: { at: string } }[]> => {
    const { events } = await readSse(`${f.stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 20_000 });
    return events.map((e) => JSON.parse(e.data) as { type: string; data: { at: string } });
  };

  /**
   * Polls each run until it is terminal; the moment one is seen canceled, asks the engine whether a
   * container of it still runs (canceled means the provider confirmed the workload gone).
   */
  async function watchUntilTerminal(ids: readonly string[]): Promise<{ ends: Map<string, string>; liveAtCancel: string[] }> {
    const ends = new Map<string, string>();
    const liveAtCancel: string[] = [];
    const deadline = Date.now() + patience(120_000);
    while (ends.size < ids.length && Date.now() < deadline) {
      await Promise.all(
        ids
          .filter((id) => !ends.has(id))
          .map(async (id) => {
            const state = await stateOf(id);
            if (!['succeeded', 'failed', 'canceled'].includes(state)) {
              return;
            }
            ends.set(id, state);
            const live = (await engineContainers([`${RUN_LABEL}=${id}`])).filter(isLive);
            liveAtCancel.push(...live.map((c) => `${id}: container ${c.id.slice(0, 12)} ${c.state} when the run was seen ${state}`));
          }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    return { ends, liveAtCancel };
  }

  it(
    `${RACED} runs cancelled 0-500 ms after their create and ${RUNNING} cancelled while running all end canceled with their container stopped, each container made once and only after its dispatch was recorded, and none left afterwards`,
    async () => {
      tap = new EngineEventTap(f.env.namespace);
      await tap.start();
      const running = await Promise.all(Array.from({ length: RUNNING }, create));
      const raced = await Promise.all(
        Array.from({ length: RACED }, async () => {
          const id = await create();
          await new Promise((r) => setTimeout(r, Math.random() * 500)); // the race itself, not a wait for the system
          await cancel(id);
          return id;
        }),
      );
      for (const id of running) {
        await eventually(async () => ((await stateOf(id)) === 'running' ? true : undefined), 60_000, `run ${id} to be running`);
        await cancel(id);
      }
      const ids = [...raced, ...running];
      const { ends, liveAtCancel } = await watchUntilTerminal(ids);
      const notCanceled = ids.filter((id) => ends.get(id) !== 'canceled').map((id) => `${id}: ${ends.get(id) ?? 'not terminal'}`);

      // What the engine recorded: each container's creation, against the run's own record of its dispatch.
      const creations = eventsByRun(await tap.stop(), 'create');
      const createdTwice: string[] = [];
      const createdBeforeDispatch: string[] = [];
      for (const id of ids.filter((i) => creations.has(i))) {
        const made = creations.get(id) ?? [];
        if (made.length > 1) {
          createdTwice.push(`${id}: ${made.length} containers created`);
        }
        const dispatched = (await eventsOf(id)).filter((e) => e.type === 'run.dispatched').map((e) => Date.parse(e.data.at));
        const first = Math.min(...made.map((m) => m.atMs));
        if (!dispatched.some((at) => at <= first)) {
          createdBeforeDispatch.push(
            `${id}: container created at ${new Date(first).toISOString()}, ${dispatched.length ? `dispatch recorded at ${dispatched.map((d) => new Date(d).toISOString()).join(', ')}` : 'no dispatch recorded'}`,
          );
        }
      }

      // Afterwards: none of them keeps a container (released once canceled; nothing made later).
      let left: string[] = [];
      await eventually(
        async () => {
          left = (await engineContainers([`${OWNER_LABEL}=${f.env.namespace}`]))
            .filter((c) => ids.includes(c.runId))
            .map((c) => `${c.runId}: ${c.state}`);
          return left.length === 0 ? true : undefined;
        },
        20_000,
        'no container of the canceled runs',
      ).catch(() => undefined);

      expect({ notCanceled, liveAtCancel, createdTwice, createdBeforeDispatch, left }).toEqual({
        notCanceled: [],
        liveAtCancel: [],
        createdTwice: [],
        createdBeforeDispatch: [],
        left: [],
      });
    },
    patience(400_000),
  );
});
