import { randomUUID } from 'node:crypto';
import { engineGet, engineSend, OWNER_LABEL, RUN_LABEL } from './engine-record';
import { CONTAINER_IMAGE, CONTAINER_SOCKET } from './optional-dependency';

/** One lifecycle event of a labelled container, as the engine recorded it (Docker's names: create, start, die, remove). */
export interface EngineEvent {
  readonly action: string;
  readonly runId: string;
  readonly containerId: string;
  /** The engine's own time of the event, in ms since the epoch (fractional). */
  readonly atMs: number;
}

interface RawEvent {
  Action: string;
  Actor: { ID: string; Attributes?: Record<string, string> };
  timeNano: number;
}

/**
 * Collects the engine's container events for one owner label from now on. Podman keeps its events in
 * a file it truncates (the older half goes) at 1 MB, and a live stream stops at a truncation: so the
 * tap asks again and again for every event since its start, each answer a second or two after the
 * last, and keeps each event once. Events are lost only if a truncation took them before any ask,
 * which needs hundreds of events in those seconds.
 */
export class EngineEventTap {
  private readonly events = new Map<string, EngineEvent>();
  private readonly sentinel = `sentinel-${randomUUID()}`;
  private readonly sinceSec = Math.floor(Date.now() / 1000) - 1;
  private stopping = false;
  private polling: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly owner: string,
    private readonly socket = CONTAINER_SOCKET,
  ) {}

  /** Resolves once the first answer came (the engine takes the question). */
  async start(): Promise<void> {
    await this.poll();
    this.polling = (async () => {
      while (!this.stopping) {
        await this.poll().catch((error: unknown) => (this.failure = error));
      }
    })();
  }

  /**
   * Every event up to now: a sentinel container is made and removed, and the engine's events come in
   * order, so once its removal is among the answers every earlier event is too.
   */
  async stop(boundMs = 60_000): Promise<EngineEvent[]> {
    const name = `wrs-${this.sentinel}`;
    await engineSend(
      'POST',
      `/containers/create?name=${name}`,
      {
        Image: CONTAINER_IMAGE,
        Entrypoint: ['/bin/true'],
        Labels: { [RUN_LABEL]: this.sentinel, [OWNER_LABEL]: this.owner },
      },
      this.socket,
    );
    await engineSend('DELETE', `/containers/${name}?force=true`, undefined, this.socket);
    const deadline = Date.now() + boundMs;
    while (![...this.events.values()].some((e) => e.runId === this.sentinel && e.action === 'remove')) {
      if (Date.now() > deadline) {
        this.stopping = true;
        throw new Error(
          `the engine's events did not show the sentinel's removal within ${boundMs} ms (${String(this.failure ?? 'no error')})`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    this.stopping = true;
    await this.polling;
    return [...this.events.values()].filter((e) => e.runId !== this.sentinel).sort((a, b) => a.atMs - b.atMs);
  }

  /** Stops asking, without waiting for the events up to now (a test that failed before it could ask for them). */
  async close(): Promise<void> {
    this.stopping = true;
    await this.polling;
  }

  /** One ask: the engine answers when `until` (just ahead of now: one in the past gets nothing) has come. */
  private async poll(): Promise<void> {
    const filters = encodeURIComponent(JSON.stringify({ type: ['container'], label: [`${OWNER_LABEL}=${this.owner}`] }));
    const until = Math.ceil(Date.now() / 1000) + 1;
    const text = await engineGet(`/events?since=${this.sinceSec}&until=${until}&filters=${filters}`, this.socket, 60_000);
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
      const raw = JSON.parse(line) as RawEvent;
      const event = {
        action: raw.Action,
        runId: raw.Actor.Attributes?.[RUN_LABEL] ?? '',
        containerId: raw.Actor.ID,
        atMs: raw.timeNano / 1e6,
      };
      this.events.set(`${raw.Actor.ID} ${raw.Action} ${raw.timeNano}`, event);
    }
  }
}

/** Each run's events of one action (e.g. every `create`), by run id. */
export function eventsByRun(events: readonly EngineEvent[], action: string): Map<string, EngineEvent[]> {
  const out = new Map<string, EngineEvent[]>();
  for (const e of events.filter((x) => x.action === action)) {
    out.set(e.runId, [...(out.get(e.runId) ?? []), e]);
  }
  return out;
}
