/**
 * Runs work items concurrently up to a limit, but items that share a key one after another in the
 * order they were pushed: messages of one run are handled in order, different runs in parallel.
 */
export class KeyedWorkQueue {
  private running = 0;
  private readonly tails = new Map<string, Promise<void>>();
  private readonly waitingForRoom: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`the concurrency limit must be a positive integer, not ${limit}`);
    }
  }

  /** Resolves once fewer than `limit` items are pushed and not yet finished. */
  async whenBelowLimit(): Promise<void> {
    while (this.running >= this.limit) {
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    }
  }

  /** Starts `work` after the previous item of the same key has finished; never rejects. */
  push(key: string, work: () => Promise<void>): Promise<void> {
    this.running++;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const done = previous
      .then(work)
      .catch(() => undefined)
      .finally(() => {
        this.running--;
        if (this.tails.get(key) === done) {
          this.tails.delete(key);
        }
        this.waitingForRoom.shift()?.();
      });
    this.tails.set(key, done);
    return done;
  }
}
