import { PassThrough } from 'node:stream';
import type { RunView } from '@wrs/domain';
import { ContainerLogs, DEFAULT_LOG_SETTINGS, type ContainerSeen, type LogSettings, type LogSource } from './container-logs';
import type { LogLine } from '../provider';
import type { FollowStream } from './log-follower';
import { demultiplexLogs } from './log-frames';
import { frame } from './log-frame.testing';

/** An engine that counts its calls and hands out follow streams the test writes to. */
class FakeEngine implements LogSource {
  status = 'running';
  pullLine: string | undefined;
  gone = false;
  refusal: Error | undefined;
  /** Answers a follow only when the test says (Podman answers at the container's first byte). */
  silent: (() => void) | undefined;
  whole: Buffer = Buffer.alloc(0);
  readonly streams: PassThrough[] = [];
  readonly calls = { inspect: 0, follow: 0, readHead: 0 };

  inspect(): Promise<ContainerSeen | undefined> {
    this.calls.inspect++;
    return Promise.resolve(this.gone ? undefined : { status: this.status, pullLine: this.pullLine });
  }

  follow(): Promise<FollowStream | undefined> {
    this.calls.follow++;
    if (this.refusal) {
      return Promise.reject(this.refusal);
    }
    const stream = new PassThrough();
    this.streams.push(stream);
    if (this.silent) {
      return new Promise((resolve) => (this.silent = () => resolve(stream)));
    }
    return Promise.resolve(stream);
  }

  readHead(_run: RunView, count: number): Promise<LogLine[] | undefined> {
    this.calls.readHead++;
    return Promise.resolve(this.gone ? undefined : demultiplexLogs(this.whole).slice(0, count));
  }

  get stream(): PassThrough {
    return this.streams[this.streams.length - 1]!;
  }
}

const run = { runId: 'run-1' } as RunView;
const textOf = (lines: { line: string }[]) => lines.map((l) => l.line);

/** Waits (bounded) until `condition` holds: the fake's streams deliver on later ticks. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > until) {
      throw new Error(`not within 5 s: ${what}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ContainerLogs', () => {
  let engine: FakeEngine;
  let changed: string[];
  let logs: ContainerLogs;
  const make = (settings: Partial<LogSettings> = {}) =>
    new ContainerLogs(engine, { ...DEFAULT_LOG_SETTINGS, ...settings }, (runId) => changed.push(runId));
  /** The provider's observe: an inspect sent now (after the lines that came so far) found the container so. */
  const observed = (status: string) => logs.seen(run.runId, status, performance.now() + 1);

  beforeEach(() => {
    engine = new FakeEngine();
    changed = [];
    logs = make();
  });
  afterEach(() => logs.close(run.runId));

  it('answers many reads from one follow stream, lines in order, frames split across chunks', async () => {
    engine.pullLine = '[wrs] pulled img in 1.0 s';
    expect(textOf(await logs.lines(run, 0))).toEqual(['[wrs] pulled img in 1.0 s']);
    const chunk = Buffer.concat([frame(1, 'a\nb\n'), frame(2, 'err\n'), frame(1, 'c')]);
    // A frame, and a second frame's header cut after its first byte.
    engine.stream.write(chunk.subarray(0, 13));
    await eventually(() => changed.length === 1, 'the first lines told');
    observed('running');
    expect(textOf(await logs.lines(run, 1))).toEqual(['a', 'b']);
    engine.stream.write(chunk.subarray(13));
    await eventually(() => changed.length === 2, 'the next chunk told');
    observed('running');
    expect(textOf(await logs.lines(run, 2))).toEqual(['b', 'err']);
    // The same index again (its lines were not recorded): the same lines.
    expect(textOf(await logs.lines(run, 2))).toEqual(['b', 'err']);
    engine.stream.write(frame(1, 'd\n'));
    await eventually(() => changed.length === 3, 'the third chunk told');
    observed('running');
    expect(textOf(await logs.lines(run, 4))).toEqual(['cd']);
    expect(changed).toEqual(['run-1', 'run-1', 'run-1']);
    expect(engine.calls).toEqual({ inspect: 1, follow: 1, readHead: 0 });
  });

  it('hands out only lines that came before an inspect found the container still running', async () => {
    await logs.lines(run, 0);
    engine.stream.write(frame(1, 'before\n'));
    await eventually(() => changed.length === 1, 'the first line told');
    const sentAtMs = performance.now() + 1;
    logs.seen(run.runId, 'running', sentAtMs);
    await eventually(() => performance.now() > sentAtMs, 'the inspect sent');
    engine.stream.write(frame(1, 'after\n'));
    await eventually(() => changed.length === 2, 'the second line told');
    expect(textOf(await logs.lines(run, 0))).toEqual(['before']);
    observed('running');
    expect(textOf(await logs.lines(run, 0))).toEqual(['before', 'after']);
  });

  it('tells of a chunk once, however many lines it completes, and not of a chunk without a complete line', async () => {
    await logs.lines(run, 0);
    engine.stream.write(frame(1, 'partial'));
    engine.stream.write(Buffer.concat([frame(1, ' line\n'), frame(1, 'x\ny\nz\n')]));
    await eventually(() => changed.length >= 1, 'a chunk told');
    observed('running');
    expect(textOf(await logs.lines(run, 0))).toEqual(['partial line', 'x', 'y', 'z']);
    expect(changed).toEqual(['run-1']);
  });

  it('once the container exited, reads its log whole once, not what the stream brought after the exit', async () => {
    engine.pullLine = 'pulled';
    await logs.lines(run, 0);
    engine.stream.write(frame(1, 'one\ntwo\n'));
    await eventually(() => changed.length === 1, 'the lines told');
    observed('running');
    expect(textOf(await logs.lines(run, 1))).toEqual(['one', 'two']);
    // What Podman 4.3 sends when its follow lagged at the exit: lines dropped, one garbled.
    engine.stream.write(frame(1, 'thr\nsix\n'));
    await eventually(() => changed.length === 2, 'the garbled lines told');
    engine.whole = Buffer.concat([frame(1, 'one\ntwo\nthree\nfour\n'), frame(2, 'five\n'), frame(1, 'six')]);
    observed('exited');
    expect(textOf(await logs.lines(run, 3))).toEqual(['three', 'four', 'five', 'six']);
    expect(engine.streams[0]!.destroyed).toBe(true);
    // Asked again (the lines were not recorded), and then on: from memory.
    expect(textOf(await logs.lines(run, 3))).toEqual(['three', 'four', 'five', 'six']);
    expect(textOf(await logs.lines(run, 6))).toEqual(['six']);
    expect(engine.calls).toEqual({ inspect: 1, follow: 1, readHead: 1 });
  });

  it('reads the log whole when its stream ended and an inspect then finds the container exited', async () => {
    await logs.lines(run, 0);
    engine.stream.end(frame(1, 'a\nb'));
    await eventually(() => changed.length === 2, 'the lines and the end told');
    engine.status = 'exited';
    engine.whole = frame(1, 'a\nb');
    expect(textOf(await logs.lines(run, 0))).toEqual(['a', 'b']);
    expect(engine.calls).toEqual({ inspect: 2, follow: 1, readHead: 1 });
  });

  it('after a worker restart, skips to the index asked by count', async () => {
    engine.pullLine = 'pulled';
    await logs.lines(run, 3);
    engine.stream.write(Buffer.concat([frame(1, 'a\nb\n'), frame(2, 'c\nd\n'), frame(1, 'e')]));
    await eventually(() => changed.length === 1, 'the lines told');
    observed('running');
    expect(textOf(await logs.lines(run, 3))).toEqual(['c', 'd']);
    logs.close(run.runId);
    engine.status = 'exited';
    engine.whole = Buffer.concat([frame(1, 'a\nb\n'), frame(2, 'c\nd\n'), frame(1, 'e')]);
    expect(textOf(await logs.lines(run, 4))).toEqual(['d', 'e']);
  });

  it('pauses the stream past maxUnread lines, and resumes it once a read lets them go', async () => {
    logs = make({ maxUnread: 5 });
    await logs.lines(run, 0);
    engine.stream.write(frame(1, '1\n2\n3\n4\n5\n6\n'));
    await eventually(() => changed.length === 1, 'the lines told');
    expect(engine.stream.isPaused()).toBe(true);
    observed('running');
    expect(await logs.lines(run, 0)).toHaveLength(6);
    expect(engine.stream.isPaused()).toBe(true);
    expect(await logs.lines(run, 6)).toEqual([]);
    expect(engine.stream.isPaused()).toBe(false);
  });

  it('opens the stream again after it failed, skipping the lines recorded', async () => {
    await logs.lines(run, 0);
    engine.stream.write(frame(1, 'a\nb\n'));
    await eventually(() => changed.length === 1, 'the lines told');
    observed('running');
    expect(textOf(await logs.lines(run, 0))).toEqual(['a', 'b']);
    const failed = engine.stream;
    failed.destroy(new Error('socket hang up'));
    await new Promise((resolve) => failed.once('close', resolve));
    expect(await logs.lines(run, 2)).toEqual([]);
    expect(engine.calls.follow).toBe(2);
    engine.stream.write(frame(1, 'a\nb\nc\n'));
    await eventually(() => changed.length === 2, 'the new stream told');
    observed('running');
    expect(textOf(await logs.lines(run, 2))).toEqual(['c']);
  });

  it('opens the stream again when it ended while the container still runs, without its partial line', async () => {
    await logs.lines(run, 0);
    engine.stream.end(frame(1, 'a\npart'));
    await eventually(() => changed.length === 2, 'the lines and the end told');
    observed('running');
    expect(textOf(await logs.lines(run, 1))).toEqual([]);
    expect(engine.calls).toEqual({ inspect: 3, follow: 2, readHead: 0 });
    engine.stream.write(frame(1, 'a\npartial\n'));
    await eventually(() => changed.length === 3, 'the new stream told');
    observed('running');
    expect(textOf(await logs.lines(run, 1))).toEqual(['partial']);
  });

  it('does not follow a container not started yet (Podman would end the stream at once): the pull line only', async () => {
    engine.status = 'created';
    engine.pullLine = 'pulled';
    expect(textOf(await logs.lines(run, 0))).toEqual(['pulled']);
    expect(await logs.lines(run, 1)).toEqual([]);
    expect(engine.calls.follow).toBe(0);
  });

  it("says the engine's refusal to follow on the next read, and tries again on the one after", async () => {
    engine.refusal = new Error('the container engine refused to follow the logs (HTTP 500)');
    expect(await logs.lines(run, 0)).toEqual([]); // the follow is not waited for
    await expect(logs.lines(run, 0)).rejects.toThrow('HTTP 500');
    engine.refusal = undefined;
    await logs.lines(run, 0);
    expect(engine.calls.follow).toBe(2);
    expect(engine.stream.destroyed).toBe(false);
  });

  it('closes the stream on close(), and one not read for idleMs by itself', async () => {
    await logs.lines(run, 0);
    logs.close(run.runId);
    expect(engine.stream.destroyed).toBe(true);
    logs = make({ idleMs: 30 });
    await logs.lines(run, 0);
    await eventually(() => engine.stream.destroyed, 'the idle stream closed');
    expect(engine.calls.follow).toBe(2);
  });

  it("lets an exited container's log, read whole, go once not read for idleMs", async () => {
    jest.useFakeTimers();
    try {
      logs = make({ idleMs: 30 });
      engine.status = 'exited';
      await logs.lines(run, 0);
      await logs.lines(run, 0);
      expect(engine.calls.readHead).toBe(1);
      jest.advanceTimersByTime(31);
      await logs.lines(run, 0);
      expect(engine.calls.readHead).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('does not wait for a follow the engine answers only at the first byte: a silent workload reads as no lines yet', async () => {
    engine.silent = () => undefined;
    observed('running');
    expect(await logs.lines(run, 0)).toEqual([]);
    expect(await logs.lines(run, 0)).toEqual([]);
    expect(engine.calls.follow).toBe(1);
    engine.silent?.(); // the workload writes its first line: the engine answers
    engine.stream.write(frame(1, 'at last\n'));
    await eventually(() => changed.length === 1, 'the line told');
    observed('running');
    expect(textOf(await logs.lines(run, 0))).toEqual(['at last']);
  });

  it('reads nothing past the lines a run records, and keeps none of them', async () => {
    observed('running');
    await logs.lines(run, 0);
    const many = Array.from({ length: 1_200 }, (_, i) => `line ${i}`).join('\n') + '\n';
    engine.stream.write(frame(1, many));
    await eventually(() => changed.length === 1, 'the lines told');
    observed('running');
    expect((await logs.lines(run, 0)).length).toBe(1_000);
    expect(textOf(await logs.lines(run, 990))).toEqual(Array.from({ length: 10 }, (_, i) => `line ${990 + i}`));
    const calls = { ...engine.calls };
    expect(await logs.lines(run, 1_000)).toEqual([]);
    expect(engine.calls).toEqual(calls);
    expect(engine.stream.destroyed).toBe(true);
  });
});
