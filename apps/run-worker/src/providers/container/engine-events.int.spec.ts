import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { CONTAINER_IMAGE, CONTAINER_SOCKET, containerEngineMissing, describeNeeding, eventually, patience } from '@wrs/testing';
import { containerEngine } from './engine';
import { watchRunContainers, type RunContainerEvent } from './engine-events';
import { LABEL_OWNER, LABEL_RUN } from './identity';

/** Waits (bounded, times the patience knob) until `condition` holds. */
const until = (condition: () => boolean, ms: number, what: string) =>
  eventually(() => Promise.resolve(condition() ? true : undefined), ms, what);

/** A watch of `owner`'s run containers through its own engine object, whose event streams are counted. */
function watching(owner: string, backoff?: { firstMs: number; maxMs: number }) {
  const engine = containerEngine(CONTAINER_SOCKET);
  const streams = jest.spyOn(engine, 'getEvents');
  const seen: RunContainerEvent[] = [];
  const stop = watchRunContainers(engine, owner, (event) => seen.push(event), backoff);
  /** The watch's stream number `n` (from 0), once the engine answered. */
  const stream = async (n: number) => {
    await until(() => streams.mock.results.length > n, 10_000, `event stream ${n}`);
    return (await streams.mock.results[n]!.value) as Readable;
  };
  return { seen, stop, streams, stream, actionsOf: (runId: string) => seen.filter((e) => e.runId === runId).map((e) => e.action) };
}

describeNeeding(containerEngineMissing())("the engine's events of run containers (a real engine)", () => {
  const engine = containerEngine(CONTAINER_SOCKET);
  const owner = `wrs-events-${randomBytes(4).toString('hex')}`;
  const made: Docker.Container[] = [];

  /** A run container of `ownedBy` running `command`, started (the test removes it). */
  async function started(ownedBy: string, command: string): Promise<{ runId: string; container: Docker.Container }> {
    const runId = randomUUID();
    const container = await engine.createContainer({
      Image: CONTAINER_IMAGE,
      Entrypoint: ['/bin/sh', '-c', command],
      Labels: { [LABEL_RUN]: runId, [LABEL_OWNER]: ownedBy },
      HostConfig: { NetworkMode: 'none' },
    });
    made.push(container);
    await container.start();
    return { runId, container };
  }

  afterAll(async () => {
    await Promise.all(made.map((c) => c.remove({ force: true }).catch(() => undefined)));
  });

  it("reports the owner's run container's start, exit and removal, and nothing of another owner's", async () => {
    const watch = watching(owner);
    try {
      await watch.stream(0);
      const stranger = await started('another-installation', 'true');
      const { runId, container } = await started(owner, 'exit 3');
      await container.wait();
      await container.remove({ force: true });
      // Podman names the removal "remove" (Docker: "destroy"), and matches its filter on "died" and "remove".
      await until(() => watch.actionsOf(runId).includes('remove'), 20_000, 'the removal');
      expect(watch.actionsOf(runId)).toEqual(['start', 'die', 'remove']);
      // The engine sends events in order: the stranger's start came before this run's.
      expect(watch.seen.filter((e) => e.runId === stranger.runId)).toEqual([]);
      expect(watch.seen.every((e) => e.runId === runId)).toBe(true);
    } finally {
      watch.stop();
    }
  });

  it('opens a stream that ended again, asking since the last event, so the events meanwhile are reported', async () => {
    const testStartSec = Math.floor(Date.now() / 1000);
    // Long enough that a create and start on a busy machine fall inside it (the test asserts they did).
    const gapMs = patience(8_000);
    const watch = watching(owner, { firstMs: gapMs, maxMs: gapMs });
    try {
      const first = await watch.stream(0);
      const before = await started(owner, 'sleep 30');
      await until(() => watch.actionsOf(before.runId).includes('start'), 20_000, 'the first start');
      first.destroy();
      // Started while no stream is open: the next stream opens only after the gap.
      const during = await started(owner, 'true');
      expect(watch.streams).toHaveBeenCalledTimes(1);
      await until(() => watch.actionsOf(during.runId).includes('die'), 20_000, 'the events meanwhile');
      expect(watch.actionsOf(during.runId)).toEqual(['start', 'die']);
      expect(watch.streams).toHaveBeenCalledTimes(2);
      const asked = watch.streams.mock.calls[1]![0] as { since?: number };
      // The engine's time of the last event before the gap (whole seconds: that second's events come again).
      expect(asked.since).toBeGreaterThanOrEqual(testStartSec - 1);
      expect(asked.since).toBeLessThanOrEqual(Date.now() / 1000);
    } finally {
      watch.stop();
    }
  });

  it('stop() ends the stream and opens no other', async () => {
    const stopped = watching(owner, { firstMs: 50, maxMs: 50 });
    const stream = await stopped.stream(0);
    stopped.stop();
    await until(() => stream.destroyed, 5_000, 'the stream destroyed');
    // Another watch sees a later container come and go; by then a stream the stopped one opened again would have too.
    const other = watching(owner);
    try {
      await other.stream(0);
      const { runId } = await started(owner, 'true');
      await until(() => other.actionsOf(runId).includes('die'), 20_000, "the other watch's events");
      expect(stopped.streams).toHaveBeenCalledTimes(1);
      expect(stopped.seen).toEqual([]);
    } finally {
      other.stop();
    }
  });
});
