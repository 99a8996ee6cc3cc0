import type Docker from 'dockerode';
import type { ProviderOffer, PullPolicy } from '@wrs/domain';
import { ProviderError } from '../provider';
import { engineCall, messageOf, statusOf } from './engine';
import { pullFailureCode } from './pull-failure';
import { TextLines } from './text-lines';

export interface PullSettings {
  readonly policy: PullPolicy;
  readonly timeoutMs: number;
}

export const DEFAULT_PULL: PullSettings = { policy: 'IfNotPresent', timeoutMs: 300_000 };

/** The offer's pull settings (PROVIDERS_JSON), defaults for what it leaves out. */
export function pullSettingsOf(offer: ProviderOffer): PullSettings {
  return {
    policy: offer.pullPolicy ?? DEFAULT_PULL.policy,
    timeoutMs: offer.pullTimeoutSeconds !== undefined ? offer.pullTimeoutSeconds * 1000 : DEFAULT_PULL.timeoutMs,
  };
}

/** What a pull did, for the run's log. Engines count blobs differently (Podman lists the config too): no layer count. */
export interface PullSummary {
  readonly image: string;
  readonly ms: number;
}

/**
 * Makes `image` available to the engine as the policy says. Returns what the pull did, or null when
 * none was needed. Throws a ProviderError for a definite answer (the registry's, or our time bound),
 * and a plain error when the engine itself did not answer.
 */
export async function ensureImage(engine: Docker, image: string, settings: PullSettings): Promise<PullSummary | null> {
  if (settings.policy !== 'Always' && (await hasImage(engine, image))) {
    return null;
  }
  if (settings.policy === 'Never') {
    throw new ProviderError('image_not_found', `the container engine has no image ${image} and the pull policy is Never`);
  }
  const summary = await pull(engine, image, settings.timeoutMs);
  // A stream cut short without an error line reads as success: the engine's own store decides.
  if (!(await hasImage(engine, image))) {
    throw new ProviderError('provider_error', `the container engine ended the pull of ${image} without the image`);
  }
  return summary;
}

async function hasImage(engine: Docker, image: string): Promise<boolean> {
  const found = await engineCall(`inspect the image ${image}`, () => engine.getImage(image).inspect(), [404]);
  return found !== undefined;
}

async function pull(engine: Docker, image: string, timeoutMs: number): Promise<PullSummary> {
  const started = Date.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const stream = await engine.pull(image, { abortSignal: controller.signal });
    const failure = await failureIn(stream, controller.signal);
    if (failure !== null) {
      throw refusal(image, undefined, failure);
    }
    return { image, ms: Date.now() - started };
  } catch (error) {
    if (controller.signal.aborted) {
      throw new ProviderError(
        'image_pull_timed_out',
        `pulling ${image} took longer than ${timeoutMs / 1000} s (the provider's pullTimeoutSeconds)`,
      );
    }
    const status = statusOf(error);
    throw error instanceof ProviderError || status === undefined ? error : refusal(image, status, messageOf(error));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads the pull's progress stream (one JSON object a line) to its end: the first failure it reports
 * (Podman answers 200 and says what went wrong in the stream), or null. Rejects when the bound aborts
 * it or the engine goes away mid-pull (no answer, so not a refusal).
 */
function failureIn(stream: NodeJS.ReadableStream, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let failure: string | null = null;
    const lines = new TextLines((line) => (failure ??= failureOf(line)));
    let done = false;
    // Listeners stay (an error after the abort must find one); only the first outcome counts.
    const settle = (error?: Error) => {
      if (done) {
        return;
      }
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (error) {
        reject(error);
      } else {
        lines.end();
        resolve(failure);
      }
    };
    const onAbort = () => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      settle(new Error('pull aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => lines.push(chunk));
    stream.on('error', (error: Error) => settle(error));
    stream.on('end', () => settle());
    stream.on('close', () => settle(new Error('the container engine closed the pull stream before its end')));
  });
}

/** The failure a progress line reports, or null (a line that is not JSON is neither progress nor failure). */
function failureOf(line: string): string | null {
  try {
    const progress = JSON.parse(line) as { error?: unknown; errorDetail?: { message?: unknown } } | null;
    const message = progress?.errorDetail?.message ?? progress?.error;
    return message === undefined ? null : String(message);
  } catch {
    return null;
  }
}

function refusal(image: string, status: number | undefined, message: string): ProviderError {
  const code = pullFailureCode(status, message);
  const what = {
    image_not_found: 'the registry has no image',
    registry_auth_failed: 'the registry refused access to',
    provider_error: 'could not pull',
  }[code];
  return new ProviderError(code, `${code === 'provider_error' ? 'the container engine ' : ''}${what} ${image}: ${message.slice(0, 300)}`);
}
