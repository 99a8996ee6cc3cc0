import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';

/** What a tail hands its followers: the message, already read once for all of them. */
export interface TailEvent<T> {
  readonly seq: number;
  readonly value: T;
}

/**
 * A follower's queue of the live events a tail pushes to it, bounded: a follower that falls this far
 * behind (a client that does not read) is ended, and its client resumes with Last-Event-ID, rather
 * than the relay buffering without limit for it.
 */
export class FollowerQueue<T> {
  private readonly items: TailEvent<T>[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

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
    this.wake?.();
  }

  /** Ends the queue after what it holds. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *drain(): AsyncGenerator<TailEvent<T>> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) {
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/**
 * One live ordered consumer of a run's subject, shared by every follower of the run on this relay:
 * an event is read from JetStream once and pushed to each follower's queue, so 5,000 browsers watching
 * one run cost one consumer, not 5,000. `position` is the sequence of the last event pushed (or the
 * subject's last sequence when the tail opened): a follower that attaches gets every event after it.
 */
export class RunTail<T> {
  private readonly followers = new Set<FollowerQueue<T>>();
  private closed = false;

  constructor(
    private readonly messages: ConsumerMessages,
    private position: number,
    private readonly decode: (message: JsMsg) => T,
    private readonly onClosed: () => void,
  ) {
    void this.pump();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Adds a follower and returns the position it joins at (synchronously: no event can slip between). */
  attach(follower: FollowerQueue<T>): number {
    this.followers.add(follower);
    return this.position;
  }

  /** Removes a follower; the last one out closes the tail. */
  detach(follower: FollowerQueue<T>): void {
    this.followers.delete(follower);
    if (this.followers.size === 0) {
      void this.close();
    }
  }

  /** Ends every follower (after what it holds) and the consumer. */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.onClosed();
    this.followers.forEach((f) => f.end());
    this.followers.clear();
    await this.messages.close();
  }

  private async pump(): Promise<void> {
    try {
      for await (const message of this.messages) {
        const event = { seq: message.seq, value: this.decode(message) };
        this.position = message.seq;
        this.followers.forEach((f) => f.push(event));
      }
    } catch {
      // The consumer failed: the followers end and their clients resume on a fresh tail.
    } finally {
      await this.close();
    }
  }
}
