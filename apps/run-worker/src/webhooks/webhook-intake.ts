import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { readRunEventsFrom, runEventOf, type StreamNames, type StreamRunEvent } from '@wrs/messaging';
import type { IntakeStore } from './intake-store';

/** The most events recorded in one transaction. */
const BATCH = 256;

/**
 * Reads every run event in stream order from the cursor kept in Postgres and records what each owes
 * the workspace's endpoints (IntakeStore). Nothing is held in memory across a failure: it starts again
 * from the cursor, and the cursor moves only with the deliveries it made.
 */
export class WebhookIntake {
  private running = false;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    private readonly store: IntakeStore,
    private readonly options: {
      readonly name: string;
      readonly retryMs: number;
      readonly onTaken: (deliveries: number) => void;
      readonly onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.messages?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.readFromCursor();
      } catch (error) {
        this.options.onError(error);
      }
      if (this.running) {
        await new Promise((resolve) => setTimeout(resolve, this.options.retryMs));
      }
    }
  }

  private async readFromCursor(): Promise<void> {
    const cursor = await this.store.cursor(this.options.name);
    const messages = await readRunEventsFrom(this.js, this.jsm, this.names, cursor + 1, { max_messages: 1024 });
    this.messages = messages;
    if (!this.running) {
      // Stopped while the consumer was being made: nobody else would close it.
      await messages.close();
      return;
    }
    const batch: StreamRunEvent[] = [];
    try {
      for await (const message of messages) {
        const event = runEventOf(message);
        if (event) {
          batch.push(event);
        }
        // Whatever has arrived goes in one transaction; a quiet stream gets each event at once.
        if (batch.length > 0 && (batch.length >= BATCH || messages.getPending() <= 1)) {
          const made = await this.store.take(this.options.name, batch.splice(0));
          if (made > 0) {
            this.options.onTaken(made);
          }
        }
        if (!this.running) {
          break;
        }
      }
    } finally {
      await messages.close();
    }
  }
}
