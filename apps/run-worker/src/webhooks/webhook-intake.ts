import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { readRunEventsFrom, runEventOf, type StreamNames, type StreamRunEvent } from '@wrs/messaging';
import type { IntakeIdle } from './intake-idle';
import type { IntakeStore } from './intake-store';

/** The most events recorded in one transaction. */
const BATCH = 256;

/**
 * Reads every run event in stream order from the cursor kept in Postgres and records what each owes
 * the workspace's endpoints (IntakeStore). Nothing is held in memory across a failure: it starts again
 * from the cursor, and the cursor moves only with the deliveries it made.
 *
 * While no workspace has an endpoint it reads nothing (a second delivery of every event cost the worker
 * and NATS about half a millisecond per run: docs/performance.md) and moves the cursor past what nobody
 * can be owed, so that the first registration has at most a minute of events to read.
 */
export class WebhookIntake {
  private running = false;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private wakeIdle: (() => void) | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    private readonly store: IntakeStore,
    private readonly idle: IntakeIdle,
    private readonly options: {
      readonly name: string;
      readonly retryMs: number;
      /** How often it looks whether an endpoint exists (idle) or none is left (reading). */
      readonly idleCheckMs: number;
      /** How old what the cursor skips must be while no endpoint exists (a minute in service). */
      readonly skipMarginMs: number;
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
    this.wakeIdle?.();
    await this.messages?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (!(await this.idle.anyEndpoint())) {
          await this.skipWhileNobodyListens();
        } else if ((await this.readFromCursor()) === 'ended') {
          // The reader ended by itself (not for want of endpoints): not again at once.
          await this.pause(this.options.retryMs);
        }
      } catch (error) {
        this.options.onError(error);
        await this.pause(this.options.retryMs);
      }
    }
  }

  /**
   * Returns once an endpoint exists. Moves the cursor only to what the stream held `skipMarginMs` ago:
   * an endpoint is owed events stamped from its registration's start, which may be committed (and seen
   * here) later than that, and the workers' clocks that stamp events may run ahead of Postgres's.
   */
  private async skipWhileNobodyListens(): Promise<void> {
    const readings: { at: number; seq: number }[] = [];
    let skipped = 0;
    while (this.running) {
      const seq = await this.idle.lastSeq();
      if (await this.idle.anyEndpoint()) {
        return;
      }
      readings.push({ at: performance.now(), seq });
      const margin = performance.now() - this.options.skipMarginMs;
      let past: { at: number; seq: number } | undefined;
      while (readings.length > 0 && readings[0]!.at <= margin) {
        past = readings.shift();
      }
      if (past && past.seq > skipped) {
        await this.store.skipTo(this.options.name, past.seq);
        skipped = past.seq;
      }
      await this.pause(this.options.idleCheckMs);
    }
  }

  private async pause(ms: number): Promise<void> {
    if (!this.running) {
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeIdle = undefined;
  }

  /** Reads until stopped, until no endpoint is left ('nobody-listens'), or until the reader ends. */
  private async readFromCursor(): Promise<'ended' | 'nobody-listens'> {
    const cursor = await this.store.cursor(this.options.name);
    const messages = await readRunEventsFrom(this.js, this.jsm, this.names, cursor + 1, { max_messages: 1024 });
    this.messages = messages;
    if (!this.running) {
      // Stopped while the consumer was being made: nobody else would close it.
      await messages.close();
      return 'ended';
    }
    const batch: StreamRunEvent[] = [];
    let checkedAt = performance.now();
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
        if (performance.now() - checkedAt >= this.options.idleCheckMs) {
          checkedAt = performance.now();
          // The last endpoint is gone: what is still in hand is owed to nobody.
          if (!(await this.idle.anyEndpoint())) {
            return 'nobody-listens';
          }
        }
      }
    } finally {
      await messages.close();
    }
    return 'ended';
  }
}
