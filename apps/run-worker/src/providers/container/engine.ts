import Docker from 'dockerode';
import { ProviderError } from '../provider';

/** A short engine call (inspect, create, start, kill) that takes longer than this is abandoned: "unclear". */
export const ENGINE_CALL_MS = 10_000;

/** The Docker Engine API (Docker, or Podman's compatible service) on its unix socket. */
export function containerEngine(socketPath: string): Docker {
  // No API version in the paths: the engine serves its own. Pinning one breaks on engines that retire it
  // (Docker 29 refuses anything below 1.44; Podman 4.3 speaks 1.41).
  return new Docker({ socketPath });
}

/** The HTTP status of the engine's answer, or undefined when there was none (socket error, abort). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message (dockerode wraps it in "(HTTP code N) ..."). */
export function messageOf(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (typeof json?.message === 'string') {
    return json.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The engine refused a create because the name is in use. Docker answers 409; Podman 409, or 500 while
 * the other create is still making the container's storage.
 */
export function isNameTaken(error: unknown): boolean {
  const status = statusOf(error);
  return status === 409 || (status === 500 && /already in use/.test(messageOf(error)));
}

/** The engine refused a start because the container is running or has run (Podman: "container state improper"). */
export function isStartedAlready(error: unknown): boolean {
  const status = statusOf(error);
  return status === 304 || (status === 500 && /state improper/.test(messageOf(error)));
}

type Bound = { abortSignal: AbortSignal };

/**
 * One engine call, bounded in time (`call` gets an abort signal to pass on). A status in `accepted`
 * (e.g. 404 for "already gone", or 'any') resolves undefined; another status is a provider_error.
 * No answer at all is rethrown as it is, so the reconciler treats the outcome as unclear.
 */
export async function engineCall<T>(
  what: string,
  call: (bound: Bound) => Promise<T>,
  accepted: readonly number[] | 'any' = [],
): Promise<T | undefined> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the container engine did not answer (${what}) within ${ENGINE_CALL_MS} ms`));
    }, ENGINE_CALL_MS);
  });
  try {
    return await Promise.race([call({ abortSignal: controller.signal }), deadline]);
  } catch (error) {
    return refusalOf(error, what, accepted);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An engine call with no time bound of its own, for one whose answer may rightly take long (a follow
 * of a silent container's log: Podman answers it at the first byte written); `signal` abandons it.
 */
export async function unboundedEngineCall<T>(
  what: string,
  call: () => Promise<T>,
  accepted: readonly number[] | 'any' = [],
): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    return refusalOf(error, what, accepted);
  }
}

/** An accepted status resolves undefined; another status is a provider_error; no answer at all is rethrown as it is. */
function refusalOf(error: unknown, what: string, accepted: readonly number[] | 'any'): undefined {
  const status = statusOf(error);
  if (status === undefined) {
    throw error;
  }
  if (accepted === 'any' || accepted.includes(status)) {
    return undefined;
  }
  throw new ProviderError('provider_error', `the container engine refused to ${what} (HTTP ${status}): ${messageOf(error).slice(0, 300)}`);
}
