import type Docker from 'dockerode';
import type { RunView } from '@wrs/domain';
import type { LogSource } from './container-logs';
import { ENGINE_CALL_MS, engineCall, unboundedEngineCall } from './engine';
import { headOfLog } from './log-head';
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
    async readHead(run, count) {
      // Bounded to the engine's answer, then to the time between chunks: a long log takes as long as it takes to send.
      const stream = await engineCall('read the logs', (o) => logStream(engine, containerName(run), o.abortSignal), [404]);
      return stream && headOfLog(stream, count, ENGINE_CALL_MS);
    },
  };
}

/**
 * The container's log as a stream (not followed): dockerode hands a stream only to a follow, so the
 * request is the one it makes for `logs()`, asked as a stream.
 */
function logStream(engine: Docker, name: string, abortSignal: AbortSignal): Promise<FollowStream> {
  return new Promise((resolve, reject) => {
    (engine.modem as { dial(options: object, callback: (error: unknown, stream: FollowStream) => void): void }).dial(
      {
        path: `/containers/${name}/logs?`,
        method: 'GET',
        abortSignal,
        isStream: true,
        statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
        options: { stdout: true, stderr: true, follow: false },
      },
      (error, stream) => (error ? reject(error) : resolve(stream)),
    );
  });
}
