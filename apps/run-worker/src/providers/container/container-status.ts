/** What the engine's container status (`State.Status`) means to a run. */
export type ContainerPhase = 'unstarted' | 'running' | 'exited';

/** Docker's and Podman's container statuses, by what they mean to a run: one reading for observe and for the logs. */
export function phaseOfStatus(status: string): ContainerPhase {
  switch (status) {
    case 'created':
    case 'configured':
      return 'unstarted';
    case 'exited':
    case 'stopped':
    case 'dead':
      return 'exited';
    default:
      return 'running';
  }
}
