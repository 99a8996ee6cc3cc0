import { containerAppears, isNameTaken } from './engine';

/** dockerode's error for an engine answer: the status and the engine's JSON message. */
function engineError(statusCode: number, message: string): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode, json: { message } });
}

describe('container engine: a create that finds its name taken', () => {
  it("is Docker's and Podman's 409, and Podman's 500 while the other create makes the storage", () => {
    expect(isNameTaken(engineError(409, 'Conflict. The container name "/wrs-1" is already in use'))).toBe(true);
    const podman500 = 'container create: creating container storage: the container name "wrs-1" is already in use by 2efb';
    expect(isNameTaken(engineError(500, podman500))).toBe(true);
    expect(isNameTaken(engineError(500, 'container create: no space left on device'))).toBe(false);
    expect(isNameTaken(engineError(404, 'no such image'))).toBe(false);
    expect(isNameTaken(new Error('socket hang up'))).toBe(false);
  });

  it('waits while inspect says 404 or is refused, and answers the container once it shows', async () => {
    const answers: (() => Promise<string | undefined>)[] = [
      () => Promise.resolve(undefined),
      () => Promise.reject(engineError(500, 'read /proc/21513/cgroup: no such process')),
      () => Promise.resolve(undefined),
      () => Promise.resolve('the container'),
    ];
    let calls = 0;
    const inspect = () => answers[calls++]!();
    await expect(containerAppears(inspect)).resolves.toBe('the container');
    expect(calls).toBe(4);
  });
});
