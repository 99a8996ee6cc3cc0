import { resultOf } from './api-result';
import { SYSTEM_CLOCK } from './clock';
import { WrsContractMismatchError } from './errors';
import { followRun, type FollowItem, type FollowOptions, type FollowOptionsReportingSkipped, type SkippedItem } from './follow';
import { PINNED_CONTRACT_VERSION } from './generated/contract-version';
import { DEFAULT_RETRY_POLICY } from './retry-policy';
import { Transport, type TransportOptions } from './transport';
import type { ApiResult, CreatedRun, CreateRunRequest, ListRunsFilter, SuccessBody } from './types';
import { isCompatibleContract } from './version-compatibility';
import { WebhooksClient } from './webhooks';

export type WrsClientOptions = TransportOptions;

/**
 * The Workload Run Service API v1 client. It keeps one Idempotency-Key per create across retries, retries
 * 429, retryable 5xx and network failures with bounded jittered backoff (honouring Retry-After), types errors
 * by status and `code`, and resumes event streams with Last-Event-ID. The token only travels in Authorization.
 */
export class WrsClient {
  /** The contract version this client was generated from. */
  static readonly pinnedContractVersion = PINNED_CONTRACT_VERSION;
  private readonly transport: Transport;
  /** The workspace's webhook endpoints and their deliveries. */
  readonly webhooks: WebhooksClient;

  constructor(private readonly options: WrsClientOptions) {
    this.transport = new Transport(options);
    this.webhooks = new WebhooksClient(this.transport);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** GET /version (public). */
  async version(): Promise<ApiResult<SuccessBody<'/version', 'get', 200>>> {
    return resultOf(
      await this.transport.send({ method: 'GET', path: '/version', accept: 'application/json', authenticated: false, retrySafe: true }),
    );
  }

  /** Checks the deployed contract against the pinned one (the spec's first call); throws when they do not fit. */
  async checkVersion(): Promise<ApiResult<SuccessBody<'/version', 'get', 200>>> {
    const answer = await this.version();
    if (!isCompatibleContract(answer.value.contractVersion, PINNED_CONTRACT_VERSION)) {
      throw new WrsContractMismatchError(answer.value.contractVersion, PINNED_CONTRACT_VERSION);
    }
    return answer;
  }

  /** GET /workspaces/current. */
  async workspace(): Promise<ApiResult<SuccessBody<'/workspaces/current', 'get', 200>>> {
    return resultOf(
      await this.transport.send({
        method: 'GET',
        path: '/workspaces/current',
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
      }),
    );
  }

  /**
   * POST /runs. The key is made once here (or given, to continue a logical create across processes) and
   * sent with every attempt, so a retry after a lost answer gets the same run, never a second one.
   */
  async createRun(request: CreateRunRequest, options: { idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<CreatedRun> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const answer = await this.transport.send({
      method: 'POST',
      path: '/runs',
      body: request,
      headers: { 'idempotency-key': idempotencyKey },
      accept: 'application/json',
      authenticated: true,
      retrySafe: true,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return {
      ...resultOf<SuccessBody<'/runs', 'post', 201>>(answer),
      idempotencyKey,
      replayed: answer.headers.get('idempotent-replayed') === 'true',
    };
  }

  /** GET /runs/{runId}. */
  async getRun(runId: string, options: { signal?: AbortSignal } = {}): Promise<ApiResult<SuccessBody<'/runs/{runId}', 'get', 200>>> {
    return resultOf(
      await this.transport.send({
        method: 'GET',
        path: `/runs/${encodeURIComponent(runId)}`,
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }

  /**
   * GET /runs: the workspace's runs, newest first, one page (`nextCursor` for the next). A client that
   * lost a create's answer finds its run with `{ idempotencyKey }`.
   */
  async listRuns(
    filter: ListRunsFilter = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<ApiResult<SuccessBody<'/runs', 'get', 200>>> {
    const { labels, label, ...query } = filter;
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) {
        search.set(name, Array.isArray(value) ? value.join(',') : String(value));
      }
    }
    // A label is repeated, one `key=value` each; `state` is one comma-separated value.
    for (const selector of [...(label ?? []), ...Object.entries(labels ?? {}).map(([key, value]) => `${key}=${value}`)]) {
      search.append('label', selector);
    }
    const qs = search.toString();
    return resultOf(
      await this.transport.send({
        method: 'GET',
        path: qs ? `/runs?${qs}` : '/runs',
        accept: 'application/json',
        authenticated: true,
        retrySafe: true,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  }

  /** POST /runs/{runId}:cancel. Canceling twice changes nothing, so it is retried like a read. */
  async cancelRun(runId: string, options: { ifMatch?: string } = {}): Promise<ApiResult<SuccessBody<'/runs/{runId}:cancel', 'post', 202>>> {
    return resultOf(
      await this.transport.send({
        method: 'POST',
        path: `/runs/${encodeURIComponent(runId)}:cancel`,
        accept: 'application/json',
        headers: options.ifMatch ? { 'if-match': options.ifMatch } : {},
        authenticated: true,
        retrySafe: true,
      }),
    );
  }

  /**
   * The run's events until its terminal event, resuming across dropped connections (see followRun).
   * With `reportSkipped: true` (or a boolean) it also yields `skipped` items (events of types this client
   * does not know); none, `false`, or options typed FollowOptions (which has no reportSkipped) give event
   * and reset items only. The overload without reportSkipped comes last, as it was before reportSkipped:
   * `ReturnType<WrsClient['follow']>` and `Parameters<WrsClient['follow']>` are taken from it. The
   * `reportSkipped?: false` one stays before the boolean one, which options typed FollowOptions (no
   * reportSkipped) would also match, so that they get event and reset items only.
   */
  follow(runId: string, options: FollowOptions & { readonly reportSkipped: true }): AsyncGenerator<FollowItem | SkippedItem>;
  follow(runId: string, options?: FollowOptions & { readonly reportSkipped?: false }): AsyncGenerator<FollowItem>;
  follow(runId: string, options: FollowOptionsReportingSkipped): AsyncGenerator<FollowItem | SkippedItem>;
  follow(runId: string, options?: FollowOptions): AsyncGenerator<FollowItem>;
  follow(runId: string, options: FollowOptionsReportingSkipped = {}): AsyncGenerator<FollowItem | SkippedItem> {
    return followRun(
      {
        transport: this.transport,
        clock: this.options.clock ?? SYSTEM_CLOCK,
        random: this.options.random ?? Math.random,
        policy: { ...DEFAULT_RETRY_POLICY, ...this.options.retry },
      },
      runId,
      options,
    );
  }
}
