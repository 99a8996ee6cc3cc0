import type { LocalStack } from '@wrs/devstack';
import { sleep } from './servers';

/** A worker restarted with FAILPOINT armed: it kills itself (SIGKILL) at that named site in its code. */
export interface FailpointFault {
  readonly kind: 'failpoint';
  readonly target: string;
  /** The other worker, held down while the failpoint is armed so that the armed one drives every run. */
  readonly sibling: string;
  readonly name: string;
  /** How long the killed worker stays down before it starts again, unarmed. */
  readonly downMs: number;
}

/** How long an armed worker may take to reach its failpoint before the fault counts as not reached. */
export const FAILPOINT_BOUND_MS = 30_000;

/**
 * Arms one failpoint: the sibling is killed, the target restarted with FAILPOINT=name, and the fault
 * waits for the target to die there. Both then start again unarmed. Throws when the site was not
 * reached within the bound: the code no longer hits that name, and the chaos verdict says so.
 */
export async function armFailpoint(stack: LocalStack, fault: FailpointFault, boundMs = FAILPOINT_BOUND_MS): Promise<void> {
  await stack.kill(fault.sibling, 'SIGKILL');
  await stack.kill(fault.target, 'SIGKILL');
  const child = stack.startService(fault.target, { FAILPOINT: fault.name });
  const reached = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), boundMs);
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve(signal === 'SIGKILL');
    });
  });
  await stack.kill(fault.target, 'SIGKILL');
  await sleep(fault.downMs);
  for (const service of [fault.target, fault.sibling]) {
    stack.startService(service);
    await stack.waitUntilServing(service);
  }
  if (!reached) {
    throw new Error(`${fault.target} did not reach failpoint ${fault.name} within ${boundMs} ms`);
  }
}
