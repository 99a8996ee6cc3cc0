import { FollowerQueue, type EventSink, type TailEvent } from './event-firehose';

const at = (seq: number): TailEvent<string> => ({ seq, value: `e${seq}` });

/** A sink that records what it gets; `hold` makes its next delivery wait until released. */
function recordingSink(): EventSink<TailEvent<string>> & { got: number[]; ends: unknown[]; hold(): () => void } {
  let held: Promise<void> | undefined;
  const sink = {
    got: [] as number[],
    ends: [] as unknown[],
    event(e: TailEvent<string>): void | Promise<void> {
      sink.got.push(e.seq);
      const waiting = held;
      held = undefined;
      return waiting;
    },
    end(error?: unknown): void {
      sink.ends.push(error);
    },
    hold(): () => void {
      let release: () => void = () => undefined;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => release();
    },
  };
  return sink;
}

describe('a follower queue pushes its events to one sink', () => {
  it('delivers at once while the sink keeps up, holding nothing between events', () => {
    const queue = new FollowerQueue<string>(10);
    const sink = recordingSink();
    queue.push(at(1));
    queue.pipe(sink);
    expect(sink.got).toEqual([1]);
    queue.push(at(2));
    queue.push(at(3));
    expect(sink.got).toEqual([1, 2, 3]);
    queue.end();
    expect(sink.ends).toEqual([undefined]);
    queue.push(at(4));
    queue.end();
    expect([sink.got, sink.ends]).toEqual([[1, 2, 3], [undefined]]);
  });

  it('holds later events while a delivery waits (a full socket), then sends them in order, and ends after them', async () => {
    const queue = new FollowerQueue<string>(10);
    const sink = recordingSink();
    queue.pipe(sink);
    const release = sink.hold();
    queue.push(at(1));
    queue.push(at(2));
    queue.push(at(3));
    queue.end();
    expect([sink.got, sink.ends]).toEqual([[1], []]);
    release();
    await new Promise((r) => setImmediate(r));
    expect([sink.got, sink.ends]).toEqual([[1, 2, 3], [undefined]]);
  });

  it('ends a follower whose sink lets more events wait than the limit, after what it holds', async () => {
    const queue = new FollowerQueue<string>(2);
    const sink = recordingSink();
    queue.pipe(sink);
    const release = sink.hold();
    [1, 2, 3, 4, 5].forEach((seq) => queue.push(at(seq)));
    release();
    await new Promise((r) => setImmediate(r));
    expect([sink.got, sink.ends]).toEqual([[1, 2, 3], [undefined]]);
  });

  it('ends with the error when delivering fails, without throwing at whoever pushed', async () => {
    const queue = new FollowerQueue<string>(10);
    const failure = new Error('write failed');
    const ends: unknown[] = [];
    queue.pipe({
      event: (e) => {
        if (e.seq === 2) {
          throw failure;
        }
        return e.seq === 3 ? Promise.reject(failure) : undefined;
      },
      end: (error) => ends.push(error),
    });
    queue.push(at(1));
    expect(() => queue.push(at(2))).not.toThrow();
    expect(ends).toEqual([failure]);
    queue.push(at(3));
    expect(ends).toEqual([failure]);

    const rejecting = new FollowerQueue<string>(10);
    const rejected: unknown[] = [];
    rejecting.pipe({ event: () => Promise.reject(failure), end: (error) => rejected.push(error) });
    rejecting.push(at(1));
    await new Promise((r) => setImmediate(r));
    expect(rejected).toEqual([failure]);
  });
});
