import type Docker from 'dockerode';
import { createOptions, type DevContainerSpec } from './dev-dependency-container';

/** A pull longer than this is given up: the official images are tens of megabytes. */
export const DEV_IMAGE_PULL_MS = 300_000;

/** What became of a server's container. */
export type DevContainerOutcome =
  | { readonly outcome: 'created'; readonly image: string }
  | { readonly outcome: 'started again' | 'already running'; readonly image: string };

/**
 * The server's container, running: the one of that name if there is one (started if stopped, so its
 * data stays), else a new one from `spec.image`, pulled first if the engine lacks it.
 */
export async function ensureDevContainer(engine: Docker, spec: DevContainerSpec): Promise<DevContainerOutcome> {
  const existing = engine.getContainer(spec.name);
  const found = await existing.inspect().catch((error: unknown) => {
    if (statusOf(error) === 404) {
      return undefined;
    }
    throw error;
  });
  if (found) {
    if (found.State.Running) {
      return { outcome: 'already running', image: found.Config.Image };
    }
    await existing.start();
    return { outcome: 'started again', image: found.Config.Image };
  }
  await ensureImage(engine, spec);
  const container = await engine.createContainer(createOptions(spec));
  await container.start();
  return { outcome: 'created', image: spec.image };
}

async function ensureImage(engine: Docker, spec: DevContainerSpec): Promise<void> {
  if (await hasImage(engine, spec.image)) {
    return;
  }
  const failure = await pull(engine, spec.image).catch((error: unknown) => messageOf(error));
  if (failure !== undefined || !(await hasImage(engine, spec.image))) {
    throw new Error(
      `the container engine has no image ${spec.image} and could not pull it (${failure ?? 'the pull ended without it'}). ` +
        `Set ${spec.imageVariable} to an image it has (without a registry: bash scripts/podman/setup.sh builds look-alikes, scripts/podman/env.sh names them).`,
    );
  }
}

async function hasImage(engine: Docker, image: string): Promise<boolean> {
  try {
    await engine.getImage(image).inspect();
    return true;
  } catch (error) {
    if (statusOf(error) === 404) {
      return false;
    }
    throw error;
  }
}

/** Pulls to the end of the progress stream; undefined when no line reported a failure (Podman answers 200 and reports it there). */
async function pull(engine: Docker, image: string): Promise<string | undefined> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DEV_IMAGE_PULL_MS);
  try {
    const stream = await engine.pull(image, { abortSignal: controller.signal });
    const lines = await new Promise<Array<{ error?: unknown; errorDetail?: { message?: unknown } }>>((resolve, reject) =>
      engine.modem.followProgress(stream, (error: Error | null, output: Array<{ error?: unknown }>) =>
        error ? reject(error) : resolve(output),
      ),
    );
    const failed = lines.find((line) => line.error !== undefined || line.errorDetail?.message !== undefined);
    return failed ? String(failed.errorDetail?.message ?? failed.error) : undefined;
  } catch (error) {
    if (controller.signal.aborted) {
      return `no pull within ${DEV_IMAGE_PULL_MS / 1000} s`;
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** The engine's own message (dockerode wraps it in "(HTTP code N) ..."). */
function messageOf(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (typeof json?.message === 'string') {
    return json.message;
  }
  return error instanceof Error ? error.message : String(error);
}
