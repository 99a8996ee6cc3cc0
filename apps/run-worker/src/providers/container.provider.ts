import type { Placement, RunView } from '@wrs/domain';
import { demultiplexLogs, EngineClient } from './engine-client';
import { ProviderError, type HeldWorkload, type LogLine, type Observation, type RunProvider } from './provider';
import { cpuNanos, memoryBytes } from './quantities';

const LABEL_RUN = 'io.workload-run-service.run';
const LABEL_WORKSPACE = 'io.workload-run-service.workspace';
/** The installation (NAMESPACE) that made the container: the cleanup never touches another's. */
const LABEL_OWNER = 'io.workload-run-service.owner';

/**
 * Runs a workload as a real container on a Docker Engine API endpoint (Docker, or Podman's service).
 * Every call is idempotent by run id: the container is named after the run, so a worker that died
 * after creating it and is handed the same run again finds it and re-attaches instead of starting a
 * second one.
 */
export class ContainerProvider implements RunProvider {
  constructor(
    private readonly engine: EngineClient,
    readonly name = 'container',
    /** Written on every container and required by listHeld: several installations may share one engine. */
    private readonly owner = 'wrs',
  ) {}

  async submit(run: RunView, _placement: Placement): Promise<void> {
    const name = containerName(run);
    const existing = await this.engine.call('GET', `/containers/${name}/json`);
    if (existing.status === 404) {
      const created = await this.engine.call('POST', `/containers/create?name=${name}`, {
        Image: run.workload.image,
        ...(run.workload.command ? { Entrypoint: run.workload.command } : {}),
        ...(run.workload.args ? { Cmd: run.workload.args } : {}),
        Env: Object.entries(run.workload.env ?? {}).map(([k, v]) => `${k}=${v}`),
        Labels: { [LABEL_RUN]: run.runId, [LABEL_WORKSPACE]: run.workspaceId, [LABEL_OWNER]: this.owner },
        HostConfig: { NetworkMode: 'none', ...limitsOf(run) },
      });
      if (created.status === 404) {
        throw new ProviderError('image_not_found', `the image ${run.workload.image} is not available to the container engine`);
      }
      if (created.status !== 201 && created.status !== 409) {
        throw new ProviderError('provider_error', `the container engine refused to create the container (HTTP ${created.status})`);
      }
    } else if (existing.status !== 200) {
      throw new ProviderError('provider_error', `the container engine answered HTTP ${existing.status}`);
    } else if ((JSON.parse(existing.body.toString()) as { State: { Status: string } }).State.Status !== 'created') {
      // Started before (by an earlier attempt at this dispatch): starting an exited container again
      // would run the workload twice. Re-attach instead.
      return;
    }
    const started = await this.engine.call('POST', `/containers/${name}/start`);
    if (started.status !== 204 && started.status !== 304) {
      throw new ProviderError('provider_error', `the container did not start (HTTP ${started.status}): ${started.body.toString().slice(0, 200)}`);
    }
  }

  async observe(run: RunView): Promise<Observation> {
    const res = await this.engine.call('GET', `/containers/${containerName(run)}/json`);
    if (res.status === 404) {
      return { phase: 'lost', reason: 'the container is gone from the engine' };
    }
    if (res.status !== 200) {
      throw new ProviderError('provider_error', `the container engine answered HTTP ${res.status}`);
    }
    const state = (JSON.parse(res.body.toString()) as { State: { Status: string; ExitCode: number } }).State;
    switch (state.Status) {
      case 'created':
      case 'configured':
        return { phase: 'pending' };
      case 'exited':
      case 'stopped':
      case 'dead':
        return { phase: 'exited', exitCode: state.ExitCode };
      default:
        return { phase: 'running' };
    }
  }

  async logs(run: RunView, fromIndex: number): Promise<LogLine[]> {
    const res = await this.engine.call('GET', `/containers/${containerName(run)}/logs?stdout=1&stderr=1`);
    return res.status === 200 ? demultiplexLogs(res.body).slice(fromIndex) : [];
  }

  async probe(): Promise<void> {
    const res = await this.engine.call('GET', '/_ping');
    if (res.status !== 200) {
      throw new Error(`the container engine answered /_ping with HTTP ${res.status}`);
    }
  }

  async cancel(run: RunView): Promise<void> {
    await this.engine.call('POST', `/containers/${containerName(run)}/kill`);
  }

  async release(run: RunView): Promise<void> {
    await this.engine.call('DELETE', `/containers/${containerName(run)}?force=true`);
  }

  async listHeld(): Promise<HeldWorkload[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: [LABEL_RUN, `${LABEL_OWNER}=${this.owner}`] }));
    const res = await this.engine.call('GET', `/containers/json?all=true&filters=${filters}`);
    if (res.status !== 200) {
      throw new ProviderError('provider_error', `the container engine answered HTTP ${res.status} to a list of containers`);
    }
    const listed = JSON.parse(res.body.toString()) as { Id: string; Created: number; Labels?: Record<string, string> | null }[];
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
    // force: a running container is killed first (stop and remove in one call).
    const res = await this.engine.call('DELETE', `/containers/${workload.handle}?force=true`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
      throw new ProviderError('provider_error', `the container engine did not remove container ${workload.handle} (HTTP ${res.status})`);
    }
  }
}

/** The workload's resources as the engine's limits (none given: the engine's defaults). */
function limitsOf(run: RunView): { NanoCpus?: number; Memory?: number } {
  const { cpu, memory } = run.workload.resources ?? {};
  return { ...(cpu ? { NanoCpus: cpuNanos(cpu) } : {}), ...(memory ? { Memory: memoryBytes(memory) } : {}) };
}

function containerName(run: RunView): string {
  return `wrs-${run.runId}`;
}
