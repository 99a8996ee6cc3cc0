import { Injectable } from '@nestjs/common';
import type { RunView } from '@wrs/domain';
import { RunCommandBus } from '@wrs/messaging';
import { RunQueries, type RunListFilter } from '@wrs/persistence';
import { sha256Hex } from './idempotency-key';
import { UnprojectedRuns } from './unprojected-runs';

export interface RunListPage {
  readonly items: RunView[];
  /** The last run shown when more follow (the next page starts after it); null on the last page. */
  readonly lastOfPage: RunView | null;
}

/**
 * `GET /runs` from the Postgres projection, which may miss a just-accepted run for milliseconds. A search
 * by Idempotency-Key (what a client that lost a create answer does) also checks JetStream, so it finds it.
 */
@Injectable()
export class RunListService {
  constructor(
    private readonly queries: RunQueries,
    private readonly commands: RunCommandBus,
    private readonly unprojected: UnprojectedRuns,
  ) {}

  async list(workspaceId: string, filter: RunListFilter): Promise<RunListPage> {
    const page = await this.queries.list(workspaceId, filter);
    const items = [...page.items];
    if (filter.idempotencyKey !== undefined && !filter.after) {
      const pending = await this.acceptedNotProjected(workspaceId, filter.idempotencyKey, items);
      if (pending && matches(pending, filter)) {
        items.push(pending);
        items.sort(newestFirst);
      }
    }
    const shown = items.slice(0, filter.limit);
    const more = page.more || items.length > filter.limit;
    return { items: shown, lastOfPage: more ? (shown[shown.length - 1] ?? null) : null };
  }

  private async acceptedNotProjected(workspaceId: string, key: string, projected: RunView[]): Promise<RunView | null> {
    const claim = await this.commands.findClaim(workspaceId, sha256Hex(key));
    if (!claim || projected.some((run) => run.runId === claim.runId)) {
      return null;
    }
    if (await this.queries.find(workspaceId, claim.runId)) {
      return null; // projected, and left out by another filter
    }
    return this.unprojected.find(workspaceId, claim.runId);
  }
}

function matches(run: RunView, filter: RunListFilter): boolean {
  const createdAt = Date.parse(run.createdAt);
  return (
    (!filter.states || filter.states.includes(run.state)) &&
    (!filter.createdAfter || createdAt >= Date.parse(filter.createdAfter)) &&
    (!filter.createdBefore || createdAt < Date.parse(filter.createdBefore)) &&
    (filter.labels ?? []).every(({ key, value }) => Object.hasOwn(run.workload.labels ?? {}, key) && run.workload.labels?.[key] === value)
  );
}

/** The list's order, as the SQL has it: creation time, then id, both descending. */
function newestFirst(a: RunView, b: RunView): number {
  const byTime = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  if (byTime !== 0) {
    return byTime;
  }
  return a.runId === b.runId ? 0 : a.runId < b.runId ? 1 : -1;
}
