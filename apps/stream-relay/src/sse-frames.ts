import type { FeedEvent } from './feed/feed-event';

const frames = new WeakMap<FeedEvent, Buffer>();

/**
 * An event's SSE frame, encoded once however many streams send it: a fan-out then writes the same
 * bytes to every socket instead of formatting and encoding a string per stream.
 */
export function sseFrameOf(event: FeedEvent): Buffer {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = Buffer.from(`id: ${event.seq}\nevent: ${event.envelope.type}\ndata: ${event.json}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}
