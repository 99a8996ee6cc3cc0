import fc from 'fast-check';
import { KeyedWorkQueue } from './keyed-work-queue';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('KeyedWorkQueue', () => {
  it('keeps the order within a key and the limit across keys, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        async (items, limit) => {
          const queue = new KeyedWorkQueue(limit);
          const started: string[] = [];
          const finished: string[] = [];
          let inFlight = 0;
          let maxInFlight = 0;
          const all: Promise<void>[] = [];
          for (const [i, [key, ticks]] of items.entries()) {
            await queue.whenBelowLimit();
            all.push(
              queue.push(key, async () => {
                inFlight++;
                maxInFlight = Math.max(maxInFlight, inFlight);
                started.push(`${key}${i}`);
                for (let t = 0; t < ticks; t++) {
                  await tick();
                }
                finished.push(`${key}${i}`);
                inFlight--;
              }),
            );
          }
          await Promise.all(all);
          expect(maxInFlight).toBeLessThanOrEqual(limit);
          expect(finished).toHaveLength(items.length);
          for (const key of ['a', 'b', 'c', 'd']) {
            const pushed = items.flatMap(([k], i) => (k === key ? [`${k}${i}`] : []));
            expect(started.filter((s) => s.startsWith(key))).toEqual(pushed);
            expect(finished.filter((s) => s.startsWith(key))).toEqual(pushed);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('runs different keys at the same time', async () => {
    const queue = new KeyedWorkQueue(2);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = queue.push('a', async () => {
      await gate;
      order.push('a');
    });
    const second = queue.push('b', () => {
      order.push('b');
      release();
      return Promise.resolve();
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['b', 'a']);
  });

  it('survives a failing item: the next of its key still runs', async () => {
    const queue = new KeyedWorkQueue(1);
    const ran: string[] = [];
    await Promise.all([
      queue.push('a', () => Promise.reject(new Error('boom'))),
      queue.push('a', () => {
        ran.push('after');
        return Promise.resolve();
      }),
    ]);
    expect(ran).toEqual(['after']);
  });
});
