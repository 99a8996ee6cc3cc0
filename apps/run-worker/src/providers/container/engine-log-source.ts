import type Docker from 'dockerode';
import type { RunView } from '@wrs/domain';
import type { LogSource } from './container-logs';
import { engineCall, unboundedEngineCall } from './engine';
import { containerName, LABEL_PULL } from './identity';
import type { FollowStream } from './log-follower';

/** The logs' engine calls, made with dockerode on the run's container, each bounded as engineCall bounds it. */
export function engineLogSource(engine: Docker): LogSource {
  const containerOf = (run: RunView) => engine.getContainer(containerName(run));
  return {
    async inspect(run) {
      const info = await engineCall('inspect the container', (o) => containerOf(run).inspect(o), [404]);
      return info && { status: info.State.Status, pullLine: info.Config.Labels?.[LABEL_PULL] };
    },
    async follow(run, signal) {
      // Unbounded: Podman answers a follow only once the container writes its first byte. Closing the follower aborts it.
      const stream = await unboundedEngineCall(
        'follow the logs',
        () => containerOf(run).logs({ follow: true, stdout: true, stderr: true, abortSignal: signal }),
        [404],
      );
      return stream as FollowStream | undefined;
    },
    readWhole: (run) =>
      engineCall('read the logs', (o) => containerOf(run).logs({ stdout: true, stderr: true, follow: false, ...o }), [404]),
  };
}
