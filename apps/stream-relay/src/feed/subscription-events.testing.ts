import type { FeedEvent, Subscription } from './feed-event';

/** A subscription's events as an async iterable, for tests that read them in order; its failure is thrown. */
export async function* eventsOf(subscription: Subscription): AsyncGenerator<FeedEvent> {
  const items: FeedEvent[] = [];
  let done = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  subscription.start({
    event: (event) => {
      items.push(event);
      wake?.();
    },
    end: (error) => {
      done = true;
      failure = error;
      wake?.();
    },
  });
  for (;;) {
    const next = items.shift();
    if (next !== undefined) {
      yield next;
      continue;
    }
    if (done) {
      if (failure !== undefined) {
        throw failure;
      }
      return;
    }
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
}
