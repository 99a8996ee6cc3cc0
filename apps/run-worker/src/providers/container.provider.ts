import type Docker from 'dockerode';
import type { Placement, RunView } from '@wrs/domain';
import { abandonedUnstarted, ABANDONED_AFTER_MS, containerAppears } from './container/another-submit';
import { engineCall, isNameTaken, isStartedAlready } from './container/engine';
import { ContainerLogs, DEFAULT_LOG_SETTINGS, type LogSettings } from './container/container-logs';
import { engineLogSource } from './container/engine-log-source';
import { phaseOfStatus } from './container/container-status';
import { watchRunContainers } from './container/engine-events';
import { containerName, LABEL_OWNER, LABEL_RUN, LABEL_WORKSPACE } from './container/identity';
import { DEFAULT_PULL, ensureImage, type PullSummary } from './container/image-pull';
import {
  DEFAULT_CONTAINER_LIMITS,
  hostMaximumMemory,
  refuseAboveMaximum,
  withMaximumMemory,
  type ContainerLimits,
  type ContainerSettings,
} from './container-limits';
import { containerSpec } from './container-spec';
import {
  ALWAYS_WANTED,
  ProviderError,
  type HeldWorkload,
  type LogLine,
  type Observation,
  type RunProvider,
  type StillWanted,
} from './provider';

/** The part of the engine's `info` the limits use. */
interface EngineHost {
  readonly MemTotal?: unknown;
}

/**
 * Runs a workload as a real container on a Docker Engine API endpoint (Docker, or Podman's service),
 * pulling its image as the provider's pull policy says and bounded by its limits. Every call is
 * idempotent by run id: the container is named after the run, so a worker that died after creating it
 * and is handed the same run again finds it and re-attaches instead of starting a second one.
 */
export class ContainerProvider implements RunProvider {
  /** The engine is this installation's own: a workspace stores no key for it. */
  readonly takesCredential = false;
  /** Each running container's log, followed by one stream: a read does not ask the engine again. */
  private readonly runLogs: ContainerLogs;
  /** Who watch() tells of a run's change (its follower brought lines). */
  private readonly watchers = new Set<(runId: string) => void>();
  private readonly limits: ContainerLimits;
  /** The engine's answer about its host, once read (see bounds()). */
  private hostInfo: Promise<EngineHost | undefined> | undefined;

  constructor(
    private readonly engine: Docker,
    readonly name = 'container',
    /** Written on every container and required by listHeld: several installations may share one engine. */
    private readonly owner = 'wrs',
    /** The offer's pull settings and container limits (none given: the defaults). */
    private readonly settings: ContainerSettings = DEFAULT_PULL,
    /** How long a container another submit made may stay unstarted before this submit starts it. */
    private readonly abandonedAfterMs = ABANDONED_AFTER_MS,
    logSettings: LogSettings = DEFAULT_LOG_SETTINGS,
  ) {
    this.limits = settings.limits ?? DEFAULT_CONTAINER_LIMITS;
    this.runLogs = new ContainerLogs(engineLogSource(engine), logSettings, (runId) => this.tell(runId));
  }

  /**
   * The limits a new container is held to: without an offer's `maxMemory`, a share of the engine host's
   * memory. Read once; a failed read fails the submit as unclear (it is tried again, never unbounded),
   * and only an engine whose answer has no memory size leaves the ask unbounded.
   */
  private async bounds(): Promise<ContainerLimits> {
    if (this.limits.maxMemory !== undefined) {
      return this.limits;
    }
    const reading = (this.hostInfo ??= engineCall('read the engine host', () => this.engine.info() as Promise<EngineHost>));
    let host: EngineHost | undefined;
    try {
      host = await reading;
    } catch (error) {
      if (this.hostInfo === reading) {
        this.hostInfo = undefined;
      }
      throw error;
    }
    const total = host?.MemTotal;
    return typeof total === 'number' && total > 0 ? withMaximumMemory(this.limits, hostMaximumMemory(total)) : this.limits;
  }

  async submit(run: RunView, _placement: Placement, _credential: string | null = null, stillWanted = ALWAYS_WANTED): Promise<void> {
    const container = this.engine.getContainer(containerName(run));
    const inspect = () => engineCall('inspect the container', (o) => container.inspect(o), [404]);
    let found = await inspect();
    if (found === undefined) {
      // Only before a create: a container that exists was made within the limits of its time, and is this run's.
      const limits = await this.bounds();
      refuseAboveMaximum(run.workload.resources, limits);
      const pulled = await ensureImage(this.engine, run.workload.image, this.settings);
      const made = await this.create(run, pulled, limits);
      if (made !== 'name_taken') {
        await this.startIfWanted(made.id, 'made here', stillWanted);
        return;
      }
      // Another submit of this run (a second worker) is making it: the container is this run's all the same.
      found = await containerAppears(inspect);
    }
    // Made by another submit, or by an earlier attempt at this dispatch: started here only if its maker
    // died before starting it. Starting an exited container again would run the workload twice.
    if (await abandonedUnstarted(inspect, found, this.abandonedAfterMs)) {
      await this.startIfWanted(found.Id, 'made elsewhere', stillWanted);
    }
  }

  async observe(run: RunView): Promise<Observation> {
    const sentAtMs = performance.now();
    const info = await engineCall('inspect the container', (o) => this.engine.getContainer(containerName(run)).inspect(o), [404]);
    if (info === undefined) {
      this.runLogs.close(run.runId);
      return { phase: 'lost', reason: 'the container is gone from the engine' };
    }
    // The log's reads go by it: lines followed until then came while it ran; once it exited, the rest is read from the log's head.
    this.runLogs.seen(run.runId, info.State.Status, sentAtMs);
    switch (phaseOfStatus(info.State.Status)) {
      case 'unstarted':
        return { phase: 'pending' };
      case 'exited':
        return { phase: 'exited', exitCode: info.State.ExitCode };
      case 'running':
        return { phase: 'running' };
    }
  }

  logs(run: RunView, fromIndex: number): Promise<LogLine[]> {
    return this.runLogs.lines(run, fromIndex);
  }

  /** Tells of the engine's events of this owner's run containers (start, exit, removal) and of each chunk of lines a run's log stream brings. */
  watch(changed: (runId: string) => void): () => void {
    // A listener's fault must not break the stream that called it: the reconciler observes on its schedule all the same.
    const safely = (runId: string) => {
      try {
        changed(runId);
      } catch {
        // Its own concern.
      }
    };
    this.watchers.add(safely);
    const stopEvents = watchRunContainers(this.engine, this.owner, (event) => safely(event.runId));
    return () => {
      stopEvents();
      this.watchers.delete(safely);
    };
  }

  async probe(): Promise<void> {
    await engineCall('answer a ping', () => this.engine.ping());
  }

  async cancel(run: RunView): Promise<void> {
    this.runLogs.close(run.runId);
    // Stop and remove in one call (force kills first): the reconciler confirms the cancel by finding
    // no container. Any answer is fine here; the observe that follows is what says it is gone.
    await engineCall('remove the container', (o) => this.engine.getContainer(containerName(run)).remove({ force: true, ...o }), 'any');
  }

  async release(run: RunView): Promise<void> {
    this.runLogs.close(run.runId);
    // Best effort: a container left behind is found again by the cleanup of stray workloads.
    await engineCall('remove the container', (o) => this.engine.getContainer(containerName(run)).remove({ force: true, ...o }), 'any');
  }

  async listHeld(): Promise<HeldWorkload[]> {
    const filters = { label: [LABEL_RUN, `${LABEL_OWNER}=${this.owner}`] };
    const listed = (await engineCall('list containers', (o) => this.engine.listContainers({ all: true, filters, ...o }))) ?? [];
    return listed.flatMap((c) => {
      const runId = c.Labels?.[LABEL_RUN];
      // The engine filters by label, but one that ignored the filter must not make us remove strangers.
      if (!runId || c.Labels?.[LABEL_OWNER] !== this.owner) {
        return [];
      }
      return [{ runId, workspaceId: c.Labels[LABEL_WORKSPACE] ?? null, createdAtMs: c.Created * 1000, handle: c.Id }];
    });
  }

  async removeHeld(workload: HeldWorkload): Promise<void> {
    // force: a running container is killed first (stop and remove in one call); one already gone is fine.
    const { handle } = workload;
    await engineCall(`remove container ${handle}`, (o) => this.engine.getContainer(handle).remove({ force: true, ...o }), [404]);
  }

  private tell(runId: string): void {
    this.watchers.forEach((changed) => changed(runId));
  }

  /** The new container's id, or `name_taken` when another create of this run holds the name. */
  private async create(run: RunView, pulled: PullSummary | null, limits: ContainerLimits): Promise<{ readonly id: string } | 'name_taken'> {
    // The name goes in the query alone: dockerode would otherwise copy every field (env values too) into the URL.
    const options = { _query: { name: containerName(run) }, _body: containerSpec(run, this.owner, pulled, limits) };
    const outcome = await engineCall('create the container', async (o) => {
      try {
        return { id: (await this.engine.createContainer({ ...options, ...o } as Docker.ContainerCreateOptions)).id };
      } catch (error) {
        if (isNameTaken(error)) {
          return 'name_taken' as const;
        }
        throw error;
      }
    });
    if (outcome === undefined) {
      throw new Error('the engine answered the create without a container id');
    }
    return outcome;
  }

  /**
   * Asked once the container exists: a cancel recorded before the answer is seen here (the container
   * stays unstarted; the caller removes it), and one recorded after it finds the container to remove.
   * Started by its id, not its name: a later container of this run under the same name (made after a
   * cancel removed this one) is not this submit's to start.
   */
  private async startIfWanted(containerId: string, maker: 'made here' | 'made elsewhere', stillWanted: StillWanted): Promise<void> {
    if (await stillWanted()) {
      await this.start(this.engine.getContainer(containerId), maker);
    }
  }

  private async start(container: Docker.Container, maker: 'made here' | 'made elsewhere'): Promise<void> {
    const startOnce = async (o: { abortSignal: AbortSignal }) => {
      try {
        await container.start(o);
      } catch (error) {
        if (!isStartedAlready(error)) {
          throw error;
        }
      }
      return 'started' as const;
    };
    const answered = await engineCall('start the container', startOnce, [404]).catch((error: unknown) => {
      // A container made elsewhere is this run's: a failed start of it is unclear, never a refusal that
      // would place the run somewhere else while the container may run.
      throw maker === 'made elsewhere' && error instanceof ProviderError ? new Error(error.message) : error;
    });
    if (answered === undefined) {
      // Removed between the create and the start (a cancel did): unclear, not a refusal that counts against the engine.
      throw new Error('the container was removed before it started');
    }
  }
}
