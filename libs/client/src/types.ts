import type { paths, RunEventType, RunResource as Run, RunState } from '@wrs/contracts/types';

// The contract's types are generated into libs/contracts; `npm run client:package` ships them inside the package.
export type { Run, RunEventType, RunState };
export type { CreateRunRequest, Problem, ProblemCode, RunEvent, RunReset, VersionInfo, Workload, Workspace } from '@wrs/contracts/types';

/** GET /runs's filters and paging, as the contract defines them. */
export type ListRunsQuery = NonNullable<paths['/runs']['get']['parameters']['query']>;
/** `listRuns`'s filters: the contract's, and `labels` as an object (each entry sent as `label=key=value`). */
export type ListRunsFilter = ListRunsQuery & { readonly labels?: Readonly<Record<string, string>> };

/**
 * The JSON body of an operation's success answer, read from the contract's paths, so each client method
 * is tied to its operation: a changed response schema is a type error here after `client:generate`.
 */
export type SuccessBody<P extends keyof paths, M extends 'get' | 'post', S extends number> = paths[P][M] extends {
  responses: { [status in S]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** What a call returns: the value, and the server's request id for support. */
export interface ApiResult<T> {
  readonly value: T;
  readonly status: number;
  /** The server's X-Request-ID for the answer (keep it for support). */
  readonly requestId: string;
  /** How many requests it took (1 when the first answer was kept). */
  readonly attempts: number;
  readonly headers: Headers;
}

export interface CreatedRun extends ApiResult<Run> {
  /** The key sent with every attempt of this create. */
  readonly idempotencyKey: string;
  /** True when the server answered with the run an earlier attempt had created (Idempotent-Replayed). */
  readonly replayed: boolean;
}

export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set<RunEventType>(['run.succeeded', 'run.failed', 'run.canceled']);

/** The state an event leaves its run in (a client-side view; the server's fold is authoritative). */
export function stateAfter(type: RunEventType): RunState | undefined {
  switch (type) {
    case 'run.created':
      return 'queued';
    case 'run.dispatched':
      return 'starting';
    case 'run.dispatch_refused':
    case 'run.waiting':
      return 'queued';
    case 'run.started':
      return 'running';
    case 'run.cancel_requested':
      return 'canceling';
    case 'run.succeeded':
      return 'succeeded';
    case 'run.failed':
      return 'failed';
    case 'run.canceled':
      return 'canceled';
    case 'run.log':
      return undefined;
  }
}
