import { Injectable } from '@nestjs/common';
import { isUuid, RunNotFoundError, toRunView, type RunView } from '@wrs/domain';
import { RunCommandHandler, VersionConflictError, type LoadedRun } from '@wrs/messaging';
import { ProblemError } from '@wrs/problem';

/**
 * `POST /runs/{id}:cancel`: read the run's events, check `If-Match`, decide, and append with the version
 * read (retrying the decision on a conflict). Answers the run after the cancel.
 */
@Injectable()
export class RunCancelService {
  constructor(private readonly handler: RunCommandHandler) {}

  async cancel(workspaceId: string, runId: string, requestedBy: string, requestId: string, ifMatch: string | undefined): Promise<RunView> {
    if (!isUuid(runId)) {
      throw new ProblemError('run_not_found');
    }
    const check = (run: LoadedRun): void => {
      // A missing run is a 404 whatever the client sends: the decider says so below. A run already
      // being canceled is what the client asks for: a retry whose 202 was lost must not become a 409.
      if (run.state && !CANCELED.has(run.state.state) && ifMatch !== undefined && !etagMatches(ifMatch, run.stateVersion)) {
        throw new ProblemError('version_conflict', { params: { currentVersion: run.stateVersion } });
      }
    };
    const command = { type: 'CancelRun' as const, requestedBy, now: new Date().toISOString() };
    try {
      const run = await this.handler.decideOnEvents(workspaceId, runId, command, `cancel-${requestId}`, check);
      if (!run.state) {
        throw new RunNotFoundError();
      }
      return toRunView(run.state, run.version, run.stateVersion);
    } catch (error) {
      if (error instanceof RunNotFoundError) {
        throw new ProblemError('run_not_found');
      }
      // Writers kept moving the run on through every retry: rare, and worth a retry by the client.
      if (error instanceof VersionConflictError) {
        throw new ProblemError('dependency_unavailable', {
          headers: { 'Retry-After': '1' },
          detail: 'the run changed on every attempt to decide the cancel; retry',
        });
      }
      throw error;
    }
  }
}

const CANCELED: ReadonlySet<string> = new Set(['canceling', 'canceled']);

/** `If-Match` per RFC 9110: `*`, or a list of entity tags one of which is the run's version. */
export function etagMatches(ifMatch: string, version: number): boolean {
  return ifMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === `"${version}"`);
}
