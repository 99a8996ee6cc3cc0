import type Docker from 'dockerode';
import { engineCall } from './engine';
import { LABEL_OWNER, LABEL_RUN } from './identity';
import { TextLines } from './text-lines';

/** A lifecycle event of one of the owner's run containers, as the engine names it. */
export interface RunContainerEvent {
  readonly runId: string;
  /** start, die, oom, and destroy (Docker) or remove (Podman). */
  readonly action: string;
}

/**
 * The actions that change what an observe sees. The engine filters on these names: Docker's (die,
 * destroy) and Podman's own (died, remove: Podman 4.3 matches its filter on these and ignores the
 * others, though it reports died as "die"); an unknown name matches nothing and is no error.
 */
const WATCHED = ['start', 'die', 'died', 'destroy', 'remove', 'oom'];

export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

const RECONNECT: Backoff = { firstMs: 250, maxMs: 10_000 };

/**
 * Follows the engine's events for the owner's run containers, calling `onEvent` for each, until the
 * returned stop is called. A stream that ends or fails is opened again after a capped backoff, asking
 * for the events since the last one's time, so none is missed (Podman ends such a stream whenever it
 * truncates its events file, at 1 MB by default).
 */
export function watchRunContainers(
  engine: Docker,
  owner: string,
  onEvent: (event: RunContainerEvent) => void,
  backoff: Backoff = RECONNECT,
): () => void {
  const watch = new RunContainerWatch(engine, owner, onEvent, backoff);
  watch.connect();
  return () => watch.stop();
}

class RunContainerWatch {
  private readonly stopping = new AbortController();
  private stream: (NodeJS.ReadableStream & { destroy(): void }) | undefined;
  private retry: NodeJS.Timeout | undefined;
  private delayMs: number;
  /** The engine's time (seconds) of the last event: a stream opened again asks from there. */
  private sinceSec: number | undefined;

  constructor(
    private readonly engine: Docker,
    private readonly owner: string,
    private readonly onEvent: (event: RunContainerEvent) => void,
    private readonly backoff: Backoff,
  ) {
    this.delayMs = backoff.firstMs;
  }

  connect(): void {
    // The first stream asks from now, without `since`: Podman keeps such a live stream across a
    // truncation of its events file, where one with `since` ends.
    const since = this.sinceSec;
    this.sinceSec ??= Math.floor(Date.now() / 1000);
    const filters = { type: ['container' as const], label: [`${LABEL_OWNER}=${this.owner}`], event: WATCHED };
    engineCall('stream its events', (o) =>
      this.engine.getEvents({
        filters,
        ...(since === undefined ? {} : { since }),
        abortSignal: AbortSignal.any([this.stopping.signal, o.abortSignal]),
      } as Docker.GetEventsOptions),
    ).then(
      (stream) => this.attach(stream as typeof this.stream),
      () => this.again(),
    );
  }

  stop(): void {
    this.stopping.abort();
    clearTimeout(this.retry);
    this.stream?.destroy();
    this.stream = undefined;
  }

  private attach(stream: typeof this.stream): void {
    if (this.stopping.signal.aborted || stream === undefined) {
      stream?.destroy();
      this.again();
      return;
    }
    this.stream = stream;
    const openedAt = Date.now();
    const lines = new TextLines((line) => this.take(line));
    let over = false;
    const ended = () => {
      if (!over) {
        over = true;
        this.stream = undefined;
        // A stream that lived past the longest wait was not refused: the next one starts from the first wait.
        if (Date.now() - openedAt > this.backoff.maxMs) {
          this.delayMs = this.backoff.firstMs;
        }
        this.again();
      }
    };
    stream.on('data', (chunk: Buffer) => lines.push(chunk));
    stream.on('end', ended);
    stream.on('error', ended);
    stream.on('close', ended);
  }

  private take(line: string): void {
    const event = parsed(line);
    const attributes = event?.Actor?.Attributes;
    const action = event?.Action ?? event?.status;
    const runId = attributes?.[LABEL_RUN];
    if (typeof event?.time === 'number') {
      this.sinceSec = event.time;
    }
    // Checked here too: an engine that ignored a filter must not report another owner's containers.
    if (
      event === undefined ||
      (event.Type !== undefined && event.Type !== 'container') ||
      attributes?.[LABEL_OWNER] !== this.owner ||
      action === undefined ||
      !WATCHED.includes(action) ||
      !runId
    ) {
      return;
    }
    this.delayMs = this.backoff.firstMs;
    this.onEvent({ runId, action });
  }

  private again(): void {
    if (this.stopping.signal.aborted) {
      return;
    }
    this.retry = setTimeout(() => this.connect(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
  }
}

interface EngineEvent {
  Type?: string;
  Action?: string;
  status?: string;
  time?: number;
  Actor?: { Attributes?: Record<string, string> };
}

function parsed(line: string): EngineEvent | undefined {
  try {
    const event = JSON.parse(line) as unknown;
    return typeof event === 'object' && event !== null ? (event as EngineEvent) : undefined;
  } catch {
    return undefined;
  }
}
