import type Docker from 'dockerode';
import { abandonedUnstarted, containerAppears } from './another-submit';
import { isNameTaken, isStartedAlready } from './engine';

/** dockerode's error for an engine answer: the status and the engine's JSON message. */
function engineError(statusCode: number, message: string): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode, json: { message } });
}

const inState = (Status: string) => ({ State: { Status } }) as Docker.ContainerInspectInfo;

/** An inspect that gives these answers in turn, counting its calls. */
function scripted(answers: (() => Promise<Docker.ContainerInspectInfo | undefined>)[]) {
  const inspect = Object.assign(() => answers[Math.min(inspect.calls++, answers.length - 1)]!(), { calls: 0 });
  return inspect;
}

describe('container engine answers', () => {
  it("a name taken is Docker's and Podman's 409, and Podman's 500 while the other create makes the storage", () => {
    expect(isNameTaken(engineError(409, 'Conflict. The container name "/wrs-1" is already in use'))).toBe(true);
    const podman500 = 'container create: creating container storage: the container name "wrs-1" is already in use by 2efb';
    expect(isNameTaken(engineError(500, podman500))).toBe(true);
    expect(isNameTaken(engineError(500, 'container create: no space left on device'))).toBe(false);
    expect(isNameTaken(engineError(404, 'no such image'))).toBe(false);
    expect(isNameTaken(new Error('socket hang up'))).toBe(false);
  });

  it("a container started already is 304, and Podman's 500 'state improper'", () => {
    expect(isStartedAlready(engineError(304, ''))).toBe(true);
    const improper = 'container 2efb must be in Created or Stopped state to be started: container state improper';
    expect(isStartedAlready(engineError(500, improper))).toBe(true);
    expect(isStartedAlready(engineError(500, 'OCI runtime error: executable file not found'))).toBe(false);
  });
});

describe("another submit's container", () => {
  it('is waited for while inspect says 404 or is refused, and answered once it shows', async () => {
    const inspect = scripted([
      () => Promise.resolve(undefined),
      () => Promise.reject(engineError(500, 'read /proc/21513/cgroup: no such process')),
      () => Promise.resolve(undefined),
      () => Promise.resolve(inState('created')),
    ]);
    await expect(containerAppears(inspect)).resolves.toEqual(inState('created'));
    expect(inspect.calls).toBe(4);
  });

  it('is not started here once it has left "created" (its maker started it), nor when it is gone', async () => {
    const started = scripted([() => Promise.resolve(inState('created')), () => Promise.resolve(inState('exited'))]);
    expect(await abandonedUnstarted(started, inState('created'), 60_000)).toBe(false);
    expect(started.calls).toBe(2);
    const removed = scripted([() => Promise.resolve(undefined)]);
    expect(await abandonedUnstarted(removed, inState('created'), 60_000)).toBe(false);
    expect(await abandonedUnstarted(removed, inState('running'), 60_000)).toBe(false);
  });

  it('is started here when it is still "created" after the grace, through refused inspects', async () => {
    const stuck = scripted([() => Promise.reject(engineError(500, 'read /proc/1/cgroup')), () => Promise.resolve(inState('created'))]);
    expect(await abandonedUnstarted(stuck, inState('created'), 300)).toBe(true);
    expect(stuck.calls).toBeGreaterThanOrEqual(1);
  });
});
