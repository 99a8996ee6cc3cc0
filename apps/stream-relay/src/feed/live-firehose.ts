import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { readRunEventsFrom, type StreamNames } from '@wrs/messaging';
import { EventFirehose } from './event-firehose';
import { feedEventOf, type FeedEvent } from './feed-event';

/** What the firehose remembers of recent runs: their latest events, decoded (about 1-2 KiB each: 40 MiB at most). */
const REMEMBERED = { perRun: 32, total: 20_000 };

/** The relay's one firehose, opened on first use and again after it ended (a failure, a reconnect). */
export class LiveFirehose {
  private firehose: Promise<EventFirehose<FeedEvent>> | undefined;
  /** The firehose once open, for the synchronous `followedRuns`. */
  private openFirehose: EventFirehose<FeedEvent> | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
  ) {}

  /** How many runs have followers on this relay. */
  get followedRuns(): number {
    return this.openFirehose === null ? 0 : this.openFirehose.followedRuns;
  }

  async get(): Promise<EventFirehose<FeedEvent>> {
    for (;;) {
      const pending = (this.firehose ??= this.openNewFirehose());
      try {
        const firehose = await pending;
        if (!firehose.isClosed) {
          return firehose;
        }
      } catch (error) {
        if (this.firehose === pending) {
          this.firehose = undefined;
        }
        throw error;
      }
      if (this.firehose === pending) {
        this.firehose = undefined;
      }
    }
  }

  /** Ends the firehose and its followers; the next `get` opens a new one. */
  async close(): Promise<void> {
    await (await this.firehose?.catch(() => null))?.close();
  }

  private async openNewFirehose(): Promise<EventFirehose<FeedEvent>> {
    // From the stream's last sequence on: every event after it reaches the firehose.
    const position = (await this.jsm.streams.info(this.names.eventsStream)).state.last_seq;
    const messages = await readRunEventsFrom(this.js, this.jsm, this.names, position + 1, { max_messages: 1024 });
    const firehose = new EventFirehose<FeedEvent>(
      messages,
      position,
      feedEventOf,
      () => {
        if (this.openFirehose === firehose) {
          this.openFirehose = null;
        }
      },
      REMEMBERED,
    );
    this.openFirehose = firehose;
    return firehose;
  }
}
