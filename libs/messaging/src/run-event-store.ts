import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import type { RunEvent } from '@wrs/domain';
import type { StreamNames } from './names';
import { decodeRunEvent, encodeRunEvent, PREVIOUS_EVENT_HEADER, previousOf, runEventFrom, type StreamRunEvent } from './run-event-codec';
import { consumeOrdered } from './ordered-read';
import { publishTraced } from './traced-publish';

export interface RecordedRunEvent {
  readonly seq: number;
  readonly event: RunEvent;
}

/** The run's subject moved on since the version the decision was based on. */
export class VersionConflictError extends Error {
  constructor(readonly expected: number) {
    super(`version conflict: expected last sequence ${expected}`);
    this.name = 'VersionConflictError';
  }
}

/**
 * JetStream as the event store: one subject per run, the stream sequence as the event's version.
 * Appends are guarded by `expect.lastSubjectSequence` (optimistic concurrency) and carry a `msgID` so
 * a publish retried after a lost acknowledgement is not stored twice.
 */
export class RunEventStore {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
  ) {}

  /** Sequence of the run's last event, 0 when it has none. */
  async version(workspaceId: string, runId: string): Promise<number> {
    const last = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    return last?.seq ?? 0;
  }

  /** The run's last stored event, or null when it has none: one message get. */
  async last(workspaceId: string, runId: string): Promise<StreamRunEvent | null> {
    const message = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    return message ? runEventFrom(message.subject, message.seq, message.data, message.header) : null;
  }

  /** The run event stored at a stream sequence, or null if the stream holds none there (any more). */
  async bySeq(seq: number): Promise<StreamRunEvent | null> {
    const message = await this.jsm.streams.getMessage(this.names.eventsStream, { seq });
    return message ? runEventFrom(message.subject, message.seq, message.data, message.header) : null;
  }

  /**
   * The run's events and version. A run whose last event names no previous one (a run just created)
   * is read with the one direct get that finds its version; a longer history with an ordered consumer.
   */
  async read(workspaceId: string, runId: string): Promise<{ events: RecordedRunEvent[]; version: number }> {
    const last = await this.jsm.streams.getMessage(this.names.eventsStream, {
      last_by_subj: this.names.runEvents(workspaceId, runId),
    });
    if (!last) {
      return { events: [], version: 0 };
    }
    const version = last.seq;
    if (previousOf(last.header) === 0) {
      return { events: [{ seq: version, event: decodeRunEvent(last.data).event }], version };
    }
    const messages = await consumeOrdered(this.js, this.jsm, this.names.eventsStream, {
      filter_subjects: this.names.runEvents(workspaceId, runId),
      deliver_policy: DeliverPolicy.All,
    });
    const events: RecordedRunEvent[] = [];
    try {
      for await (const m of messages) {
        events.push({ seq: m.seq, event: decodeRunEvent(m.data).event });
        if (m.seq >= version) {
          break;
        }
      }
    } finally {
      await messages.close();
    }
    return { events, version };
  }

  /** Appends in order after `expectedVersion`; returns the new version. */
  async append(
    workspaceId: string,
    runId: string,
    events: readonly RunEvent[],
    expectedVersion: number,
    messageIdBase: string,
  ): Promise<number> {
    const recorded = await this.appendRecorded(workspaceId, runId, events, expectedVersion, messageIdBase);
    return recorded.at(-1)?.seq ?? expectedVersion;
  }

  /** Appends in order after `expectedVersion`; returns each event with the sequence it was stored at. */
  async appendRecorded(
    workspaceId: string,
    runId: string,
    events: readonly RunEvent[],
    expectedVersion: number,
    messageIdBase: string,
  ): Promise<RecordedRunEvent[]> {
    const subject = this.names.runEvents(workspaceId, runId);
    const recorded: RecordedRunEvent[] = [];
    let version = expectedVersion;
    for (const [index, event] of events.entries()) {
      try {
        // The run's previous event travels with each event, so a reader can tell a gap (events removed
        // by retention or purge) from ids that simply belong to other runs.
        const meta = headers();
        meta.set(PREVIOUS_EVENT_HEADER, String(version));
        const ack = await publishTraced(this.js, 'run.event', subject, encodeRunEvent(workspaceId, runId, event), {
          // JetStream dedupes message ids stream-wide: scope them to the run.
          msgID: `${runId}:${messageIdBase}:${index}`,
          expect: { lastSubjectSequence: version },
          headers: meta,
        });
        // JetStream checks the message id before the expected sequence: a duplicate is another writer's
        // identical append (the same decision on the same version), stored in place of ours. Not ours.
        if (ack.duplicate) {
          throw new VersionConflictError(version);
        }
        version = ack.seq;
        recorded.push({ seq: version, event });
      } catch (error) {
        if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) {
          throw new VersionConflictError(version);
        }
        throw error;
      }
    }
    return recorded;
  }
}
