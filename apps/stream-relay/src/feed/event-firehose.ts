import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';

/** What the firehose hands a follower: an event, read and decoded once for all of them. */
export interface TailEvent<T> {
  readonly seq: number;
  readonly value: T;
}

/** Where a follower's events go: one at a time, a returned promise holding the next until it settles. */
export interface EventSink<T> {
  event(value: T): void | Promise<void>;
  /** No more events: the queue ended (and handed over all it held), or delivering one failed. */
  end(error?: unknown): void;
}

/**
 * A follower's bounded queue of live events, pushed to its sink as they arrive: an idle follower is this
 * object and nothing waiting. A follower that falls this far behind (its sink slow to take events) is
 * ended and resumes with Last-Event-ID, so the relay never buffers without limit.
 */
export class FollowerQueue<T> {
  private readonly items: TailEvent<T>[] = [];
  private ended = false;
  private sink: EventSink<TailEvent<T>> | undefined;
  /** A delivery is under way (its promise pending, or the loop below running). */
  private busy = false;

  constructor(private readonly limit: number) {}

  push(event: TailEvent<T>): void {
    if (this.ended) {
      return;
    }
    if (this.items.length >= this.limit) {
      this.end();
      return;
    }
    this.items.push(event);
    this.flush();
  }

  /** Ends the queue after what it holds. */
  end(): void {
    this.ended = true;
    this.flush();
  }

  /** Hands what the queue holds, and every later event, to `sink`; then its end, once. */
  pipe(sink: EventSink<TailEvent<T>>): void {
    this.sink = sink;
    this.flush();
  }

  private flush(): void {
    const sink = this.sink;
    if (this.busy || sink === undefined) {
      return;
    }
    this.busy = true;
    for (let next = this.items.shift(); next !== undefined; next = this.items.shift()) {
      let delivered: void | Promise<void>;
      try {
        delivered = sink.event(next);
      } catch (error) {
        this.fail(error);
        return;
      }
      if (delivered) {
        delivered.then(
          () => {
            this.busy = false;
            this.flush();
          },
          (error: unknown) => this.fail(error),
        );
        return;
      }
    }
    this.busy = false;
    if (this.ended) {
      this.sink = undefined;
      sink.end();
    }
  }

  private fail(error: unknown): void {
    const sink = this.sink;
    this.ended = true;
    this.items.length = 0;
    this.sink = undefined;
    sink?.end(error);
  }
}

/**
 * The latest events of each recently active subject (a contiguous stretch, since the feed sees them all),
 * bounded per subject and in total; the least recently written subject is dropped first.
 */
class RecentBySubject<T> {
  private readonly entries = new Map<string, T[]>();
  private count = 0;

  constructor(
    private readonly perSubject: number,
    private readonly total: number,
  ) {}

  get(subject: string): T[] {
    return [...(this.entries.get(subject) ?? [])];
  }

  last(subject: string): T | undefined {
    const events = this.entries.get(subject);
    return events?.[events.length - 1];
  }

  push(subject: string, value: T): void {
    const events = this.entries.get(subject) ?? [];
    this.entries.delete(subject);
    this.entries.set(subject, events);
    events.push(value);
    this.count++;
    if (events.length > this.perSubject) {
      events.shift();
      this.count--;
    }
    while (this.count > this.total) {
      const [oldest, dropped] = this.entries.entries().next().value as [string, T[]];
      this.entries.delete(oldest);
      this.count -= dropped.length;
    }
  }
}

/**
 * One live ordered consumer of all runs' events, shared by every follower on this relay, so a connection
 * costs no JetStream consumer of its own (that was the largest cost per connection). It also remembers
 * each recent run's latest events, so most followers catch up without a read.
 */
export class EventFirehose<T extends { readonly seq: number }> {
  private readonly followers = new Map<string, Set<FollowerQueue<T>>>();
  private readonly recent: RecentBySubject<T>;
  private closed = false;

  constructor(
    private readonly messages: ConsumerMessages,
    private position: number,
    private readonly decode: (message: JsMsg) => T,
    private readonly onClosed: () => void,
    remember: { readonly perRun: number; readonly total: number },
  ) {
    this.recent = new RecentBySubject(remember.perRun, remember.total);
    void this.pump();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** How many runs have followers here. */
  get followedRuns(): number {
    return this.followers.size;
  }

  /**
   * Adds a follower of `subject`; returns where it joins and what it remembers of the subject up to
   * there (synchronously: no event can slip between the two).
   */
  attach(subject: string, follower: FollowerQueue<T>): { joinedAt: number; recent: T[] } {
    let set = this.followers.get(subject);
    if (!set) {
      set = new Set();
      this.followers.set(subject, set);
    }
    set.add(follower);
    if (this.closed) {
      follower.end();
    }
    return { joinedAt: this.position, recent: this.recent.get(subject) };
  }

  /** The subject's last event up to `position`, if this feed has seen one (and still remembers it). */
  known(subject: string): T | undefined {
    return this.recent.last(subject);
  }

  detach(subject: string, follower: FollowerQueue<T>): void {
    const set = this.followers.get(subject);
    set?.delete(follower);
    if (set?.size === 0) {
      this.followers.delete(subject);
    }
  }

  /** Ends every follower (after what it holds) and the consumer. */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.onClosed();
    this.followers.forEach((set) => set.forEach((f) => f.end()));
    this.followers.clear();
    await this.messages.close();
  }

  private async pump(): Promise<void> {
    try {
      for await (const message of this.messages) {
        // Decoded at once (the envelope parsed, the JSON and headers copied into strings): a message's
        // bytes are a view of the socket's read buffer, and remembering the message would keep that
        // whole buffer alive.
        const value = this.decode(message);
        this.position = message.seq;
        this.recent.push(message.subject, value);
        const set = this.followers.get(message.subject);
        if (set) {
          const event = { seq: message.seq, value };
          set.forEach((f) => f.push(event));
        }
      }
    } catch {
      // The consumer failed: the followers end and their clients resume on a fresh feed.
    } finally {
      await this.close();
    }
  }
}
