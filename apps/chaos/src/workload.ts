import { setMaxListeners } from 'node:events';
import { EventSource } from 'eventsource';
import { WrsApiError, WrsClient, WrsNetworkError, type CreateRunRequest } from '@wrs/client';
import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';
import { Random } from './random';
import { sleep } from './servers';

/** One answer to one attempt of a logical create (the client's retries inside it included). */
export type CreateOutcome =
  | { readonly ok: true; readonly runId: string; readonly replayed: boolean; readonly status: number }
  | { readonly ok: false; readonly status?: number; readonly code: string };

export interface LogicalCreate {
  readonly key: string;
  readonly body: CreateRunRequest;
  /** Each send of the logical request: the first, and the re-sends with the same key. */
  readonly outcomes: CreateOutcome[];
  canceled?: boolean;
}

export interface FollowerRecord {
  readonly runId: string;
  readonly ids: number[];
  readonly types: string[];
  /** Each connection's Last-Event-ID (undefined for the first). */
  readonly connections: (string | undefined)[];
  readonly problems: string[];
  /** What happened to the follower, with times (ms since the epoch): for the report. */
  readonly trace: string[];
  done: boolean;
}

/** The SSE event names the stream sends: every run event kind, and a reset. */
const EVENT_TYPES = [...RUN_EVENT_KINDS, 'reset'];
const TERMINAL = new Set(['run.succeeded', 'run.failed', 'run.canceled']);

export interface WorkloadOptions {
  readonly baseUrl: string;
  readonly token: string;
  readonly workspaceId: string;
  readonly seed: number;
  readonly ratePerSecond: number;
  /** Share of created runs that a follower follows to their end. */
  readonly followShare: number;
  readonly log: (line: string) => void;
  /** What each run asks for (default: a simulator run with a random duration, logs and exit code). */
  readonly body?: (random: Random) => CreateRunRequest;
  /** When, in ms after its create, a run is canceled, or undefined for never (default: 10 % within 800 ms). */
  readonly cancelAfter?: (random: Random) => number | undefined;
}

/** A simulator run: the default workload, its draws in the order the replay of a seed expects. */
function simulatorRun(r: Random): CreateRunRequest {
  const env: Record<string, string> = {
    SIM_START_DELAY_MS: String(r.int(0, 200)),
    SIM_DURATION_MS: String(r.int(50, 1500)),
    SIM_LOG_LINES: String(r.int(0, 3)),
    SIM_EXIT_CODE: r.chance(0.15) ? '3' : '0',
  };
  return { workload: { image: 'busybox:1.36', env }, provider: 'auto', region: 'auto' };
}

/**
 * Creates runs through the typed client at a steady rate, each with its own Idempotency-Key and the
 * client's retry rules; some logical requests are sent again with the same key (at once, racing the
 * first, or after it answered), some runs are canceled, and SSE followers (the `eventsource` package,
 * resuming with Last-Event-ID) follow a sample of runs to their end.
 */
export class Workload {
  readonly creates: LogicalCreate[] = [];
  readonly followers: FollowerRecord[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly followerClosers: (() => void)[] = [];
  private readonly random: Random;
  private readonly client: WrsClient;
  private stopped = false;
  /** Aborts the creates still retrying when the drain's time is up (they count as unanswered). */
  private readonly abandon = abandonController();

  constructor(private readonly options: WorkloadOptions) {
    this.random = new Random(options.seed);
    this.client = new WrsClient({
      baseUrl: options.baseUrl,
      token: options.token,
      workspaceId: options.workspaceId,
      attemptTimeoutMs: 5_000,
    });
  }

  /** Creates until `stop()`. */
  async run(): Promise<void> {
    const interval = 1000 / this.options.ratePerSecond;
    let next = Date.now();
    let n = 0;
    while (!this.stopped) {
      n += 1;
      this.track(this.logicalCreate(n));
      next += interval;
      await sleep(Math.max(0, next - Date.now()));
    }
  }

  stop(): void {
    this.stopped = true;
  }

  /** Waits for every create in flight (each bounded by the client's retry budget), at most until the deadline. */
  async drain(deadline: number): Promise<void> {
    const timer = setTimeout(() => this.abandon.abort(), Math.max(0, deadline - Date.now()));
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
    }
    clearTimeout(timer);
  }

  /** Waits until every follower saw its run end, or the deadline. */
  async followersDone(deadline: number): Promise<void> {
    while (Date.now() < deadline && this.followers.some((f) => !f.done)) {
      await sleep(200);
    }
    this.followerClosers.forEach((close) => close());
  }

  private track(work: Promise<unknown>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async logicalCreate(n: number): Promise<void> {
    const r = this.random;
    const key = `chaos-${this.options.seed}-${n}`;
    const body = (this.options.body ?? simulatorRun)(r);
    const create: LogicalCreate = { key, body, outcomes: [] };
    this.creates.push(create);
    const racing = r.chance(0.15);
    const resend = r.chance(0.15);
    const follow = r.chance(this.options.followShare);
    const cancelAfter = this.options.cancelAfter ? this.options.cancelAfter(r) : r.chance(0.1) ? r.int(0, 800) : undefined;
    const first = this.send(create);
    const second = racing ? this.send(create) : Promise.resolve(undefined);
    const [answer] = await Promise.all([first, second]);
    if (resend) {
      await this.send(create);
    }
    if (!answer?.ok) {
      return;
    }
    if (follow) {
      this.follow(answer.runId);
    }
    if (cancelAfter !== undefined) {
      await sleep(cancelAfter);
      try {
        await this.client.cancelRun(answer.runId);
        create.canceled = true;
      } catch (error) {
        this.options.log(`cancel ${answer.runId}: ${describeError(error)}`);
      }
    }
  }

  private async send(create: LogicalCreate): Promise<CreateOutcome> {
    let outcome: CreateOutcome;
    try {
      const created = await this.client.createRun(create.body, { idempotencyKey: create.key, signal: this.abandon.signal });
      outcome = { ok: true, runId: created.value.id, replayed: created.replayed, status: 201 };
    } catch (error) {
      outcome =
        error instanceof WrsApiError ? { ok: false, status: error.status, code: error.code } : { ok: false, code: describeError(error) };
    }
    create.outcomes.push(outcome);
    return outcome;
  }

  /** Follows one run with an `EventSource`, opening a new one with the last id when it gives up. */
  private follow(runId: string): void {
    const record: FollowerRecord = { runId, ids: [], types: [], connections: [], problems: [], trace: [], done: false };
    this.followers.push(record);
    const { baseUrl, token, workspaceId } = this.options;
    let source: EventSource | undefined;
    let closed = false;
    const open = (): void => {
      if (closed || record.done) {
        return;
      }
      // The last id this follower saw, for a new EventSource (one that reconnects by itself sends it too).
      const resumeFrom = record.ids.length > 0 ? String(record.ids[record.ids.length - 1]) : undefined;
      record.connections.push(resumeFrom);
      let status = 0;
      const es = new EventSource(`${baseUrl}/runs/${runId}/events`, {
        fetch: async (input, init) => {
          const headers = new Headers(init?.headers as Record<string, string> | undefined);
          headers.set('authorization', `Bearer ${token}`);
          headers.set('x-service-workspace-id', workspaceId);
          if (resumeFrom !== undefined && !headers.has('last-event-id')) {
            headers.set('last-event-id', resumeFrom);
          }
          record.trace.push(`${Date.now()} fetch last-event-id=${headers.get('last-event-id') ?? ''}`);
          const res = await fetch(input, { ...init, headers } as RequestInit).catch((error: unknown) => {
            record.trace.push(`${Date.now()} fetch failed ${String(error)}`);
            throw error;
          });
          status = res.status;
          record.trace.push(`${Date.now()} status ${res.status}`);
          return res;
        },
      });
      source = es;
      for (const type of EVENT_TYPES) {
        es.addEventListener(type, (message) => {
          if (type === 'reset') {
            record.problems.push(`reset at ${message.lastEventId}`);
            return;
          }
          record.ids.push(Number(message.lastEventId));
          record.trace.push(`${Date.now()} ${type} ${message.lastEventId}`);
          record.types.push(type);
          if (TERMINAL.has(type)) {
            record.done = true;
            es.close();
          }
        });
      }
      es.addEventListener('error', (error) => {
        record.trace.push(`${Date.now()} error readyState=${es.readyState} ${String((error as { message?: string }).message ?? '')}`);
        if (es.readyState !== EventSource.CLOSED || record.done) {
          return; // it reconnects by itself with Last-Event-ID
        }
        if (status === 204) {
          record.problems.push('204 before the terminal event was seen');
          record.done = true;
          return;
        }
        // A 5xx, 429 or 404 ends an EventSource for good: open a new one after a pause.
        setTimeout(open, 500);
      });
    };
    this.followerClosers.push(() => {
      closed = true;
      source?.close();
    });
    open();
  }
}

function describeError(error: unknown): string {
  if (error instanceof WrsApiError) {
    return `${error.status} ${error.code}`;
  }
  if (error instanceof WrsNetworkError) {
    // Without the request id, so outcomes tally by kind.
    return `network: ${error.message.replace(/ \(request [^)]*\)/, '')}`;
  }
  return String(error);
}

/**
 * One signal that every create in flight listens to, so more than Node's default ten listeners are
 * expected: without raising the limit, a busy phase prints a false MaxListenersExceededWarning.
 */
function abandonController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
