import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';
import type { Clock } from './clock';
import { WrsNetworkError } from './errors';
import { backoffDelayMs, type RetryPolicy } from './retry-policy';
import { SseParser, type SseMessage } from './sse-parser';
import type { Transport } from './transport';
import { TERMINAL_EVENT_TYPES, type RunEvent, type RunEventType, type RunReset } from './types';

export type FollowItem =
  /** One of the run's events; `id` is what a resume sends as Last-Event-ID. */
  | { readonly kind: 'event'; readonly id: string; readonly event: RunEvent }
  /** Events after the id asked for were removed (retention): here is where the run stands now. */
  | { readonly kind: 'reset'; readonly id: string; readonly reset: RunReset };

/**
 * An event of a type this client does not know (the contract lets a server add event types), yielded
 * only with `reportSkipped: true`: its `id` says how far the stream has come. Otherwise such events are
 * dropped without a trace.
 */
export interface SkippedItem {
  readonly kind: 'skipped';
  readonly id: string;
  /** The `event:` name the server sent, as it is (a server's text). */
  readonly type: string;
}

export interface FollowOptions {
  /** Start after this event id (a resume); from the first event when absent. */
  readonly lastEventId?: string;
  readonly signal?: AbortSignal;
  /** No byte for this long (the server sends a heartbeat every 15 s) counts as a dropped connection. */
  readonly idleTimeoutMs?: number;
}

/**
 * FollowOptions and `reportSkipped`: with `true`, following also yields a `skipped` item for each event of
 * a type this client does not know (see SkippedItem). It is not a member of FollowOptions, so options typed
 * FollowOptions still give event and reset items only; follow's overloads type the items by its value.
 */
export type FollowOptionsReportingSkipped = FollowOptions & { readonly reportSkipped?: boolean };

export interface FollowContext {
  readonly transport: Transport;
  readonly clock: Clock;
  readonly random: () => number;
  readonly policy: RetryPolicy;
}

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<RunEventType>(RUN_EVENT_KINDS);
/** What the server's `retry:` says before it has said anything. */
const DEFAULT_RECONNECT_MS = 1000;
/**
 * A stream open this long did not fail, though it brought no event: the server ends every stream after
 * its maximum duration (30 minutes by default), and a quiet run may span many of them.
 */
const LIVED_LONG_MS = 60_000;

/** What following yields: `skipped` items only when asked for (`reportSkipped: true`, or a boolean). */
export type FollowYield<ReportSkipped extends boolean> = FollowItem | (true extends ReportSkipped ? SkippedItem : never);

/**
 * A run's events, each once and in order, until its terminal event: when the connection drops it
 * reconnects (after the server's `retry:` time, backing off while nothing gets through) with
 * Last-Event-ID, so nothing is missed or repeated; a 204 means the run had already ended. With
 * `reportSkipped: true` (or a boolean) it also yields `skipped` items; without it, event and reset only.
 * The overload without reportSkipped comes last, as before reportSkipped: ReturnType and Parameters take it.
 */
export function followRun(
  context: FollowContext,
  runId: string,
  options: FollowOptions & { readonly reportSkipped: true },
): AsyncGenerator<FollowItem | SkippedItem>;
export function followRun(
  context: FollowContext,
  runId: string,
  options?: FollowOptions & { readonly reportSkipped?: false },
): AsyncGenerator<FollowItem>;
export function followRun(
  context: FollowContext,
  runId: string,
  options: FollowOptionsReportingSkipped,
): AsyncGenerator<FollowItem | SkippedItem>;
export function followRun(context: FollowContext, runId: string, options?: FollowOptions): AsyncGenerator<FollowItem>;
export function followRun(
  context: FollowContext,
  runId: string,
  options: FollowOptionsReportingSkipped = {},
): AsyncGenerator<FollowItem | SkippedItem> {
  return followAll(context, runId, options);
}

async function* followAll(
  context: FollowContext,
  runId: string,
  options: FollowOptionsReportingSkipped,
): AsyncGenerator<FollowItem | SkippedItem> {
  let lastEventId = options.lastEventId ?? '';
  let reconnectMs = DEFAULT_RECONNECT_MS;
  let fruitlessReconnects = 0;
  for (;;) {
    const answer = await context.transport.send({
      method: 'GET',
      path: `/runs/${encodeURIComponent(runId)}/events`,
      accept: 'text/event-stream',
      headers: lastEventId ? { 'last-event-id': lastEventId } : {},
      authenticated: true,
      retrySafe: true,
      stream: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (answer.status === 204 || !answer.response?.body) {
      answer.abort?.abort();
      return;
    }
    const parser = new SseParser(lastEventId);
    const openedAtMs = context.clock.now();
    let progressed = false;
    let resetToEndedRun = false;
    // The caller's signal must also cut a stream that is open and quiet, not only a pending request.
    const cut = (): void => answer.abort?.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', cut, { once: true });
    try {
      for await (const message of readMessages(answer.response, answer.abort!, parser, options.idleTimeoutMs ?? 45_000)) {
        lastEventId = message.lastEventId;
        const item = toItem(message, options.reportSkipped === true);
        if (!item) {
          continue;
        }
        progressed = true;
        yield item;
        if (item.kind === 'event' && TERMINAL_EVENT_TYPES.has(item.event.type)) {
          return;
        }
        resetToEndedRun = item.kind === 'reset' && item.reset.data.run?.terminal === true;
      }
    } catch (error) {
      if (options.signal?.aborted) {
        throw options.signal.reason;
      }
      // A dropped connection: resume below. Anything else (a body that is not JSON) is a real fault.
      if (error instanceof SyntaxError) {
        throw error;
      }
    } finally {
      options.signal?.removeEventListener('abort', cut);
      answer.abort?.abort();
    }
    if (resetToEndedRun) {
      // The run had ended and its terminal event is no longer held: the reset was the last word.
      return;
    }
    reconnectMs = parser.retryMs ?? reconnectMs;
    // Only a stream that ended at once, with no event and no heartbeat, counts towards giving up.
    const healthy = progressed || parser.heartbeats > 0 || context.clock.now() - openedAtMs >= LIVED_LONG_MS;
    fruitlessReconnects = healthy ? 0 : fruitlessReconnects + 1;
    if (fruitlessReconnects >= context.policy.maxAttempts) {
      throw new WrsNetworkError(`the event stream of run ${runId} kept ending without events`, answer.requestId, fruitlessReconnects);
    }
    await context.clock.sleep(backoffDelayMs(context.policy, fruitlessReconnects, context.random, reconnectMs), options.signal);
  }
}

/** The stream's events as they complete, cutting the connection when it goes quiet for too long. */
async function* readMessages(
  response: Response,
  abort: AbortController,
  parser: SseParser,
  idleTimeoutMs: number,
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let idle = setTimeout(() => abort.abort(new Error('the event stream went quiet')), idleTimeoutMs);
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(new Error('the event stream went quiet')), idleTimeoutMs);
      yield* parser.push(decoder.decode(chunk, { stream: true }));
    }
  } finally {
    clearTimeout(idle);
  }
}

function toItem(message: SseMessage, reportSkipped: boolean): FollowItem | SkippedItem | undefined {
  if (message.event === 'reset') {
    return { kind: 'reset', id: message.lastEventId, reset: JSON.parse(message.data) as RunReset };
  }
  // An event type this client does not know is skipped: newer servers may add some.
  if (!KNOWN_EVENT_TYPES.has(message.event)) {
    return reportSkipped ? { kind: 'skipped', id: message.lastEventId, type: message.event } : undefined;
  }
  return { kind: 'event', id: message.lastEventId, event: JSON.parse(message.data) as RunEvent };
}
