import type Docker from 'dockerode';
import type { RunView } from '@wrs/domain';
import { hostLimits, type ContainerLimits } from './container-limits';
import { LABEL_OWNER, LABEL_PULL, LABEL_RUN, LABEL_WORKSPACE } from './container/identity';
import type { PullSummary } from './container/image-pull';

/** The engine's create body for a run's container: its workload, labels, and what bounds it on the host. */
export function containerSpec(
  run: RunView,
  owner: string,
  pulled: PullSummary | null,
  limits: ContainerLimits,
): Docker.ContainerCreateOptions {
  return {
    Image: run.workload.image,
    ...(run.workload.command ? { Entrypoint: [...run.workload.command] } : {}),
    ...(run.workload.args ? { Cmd: [...run.workload.args] } : {}),
    Env: Object.entries(run.workload.env ?? {}).map(([k, v]) => `${k}=${v}`),
    Labels: {
      [LABEL_RUN]: run.runId,
      [LABEL_WORKSPACE]: run.workspaceId,
      [LABEL_OWNER]: owner,
      // Always set: an image's own label of that name would otherwise show as the run's first log line.
      [LABEL_PULL]: pulled ? pullLine(pulled) : '',
    },
    HostConfig: {
      NetworkMode: 'none',
      // A setuid binary in the image cannot gain privileges the workload did not start with. Capabilities
      // stay the engine's defaults: dropping them breaks ordinary images (package installs, chown).
      SecurityOpt: ['no-new-privileges'],
      ...hostLimits(run.workload.resources, limits),
    },
  };
}

function pullLine(pulled: PullSummary): string {
  return `[wrs] pulled ${pulled.image} in ${(pulled.ms / 1000).toFixed(1)} s`;
}
