import Docker from 'dockerode';
import type { EngineCandidate } from './container-engine';
import { describeMissing, MissingDependenciesError, type UnreachableDependency } from './dependencies';
import { devContainerSpec, type DevContainerSpec } from './dev-dependency-container';
import { ensureDevContainer } from './dev-dependency-engine';
import type { DevDependencyImage, DevDependencyKind } from './dev-dependency-images';
import { waitUntilServing } from './dev-dependency-readiness';

/** What `npm start` did for the servers it found missing. */
export interface StartedDevDependencies {
  /** One line per server: the container started or reused, and its image. */
  readonly lines: readonly string[];
  /** The containers' names; they stay running when the stack stops. */
  readonly containers: readonly string[];
}

/**
 * Starts each unreachable server as a container on the engine, published where its URL says, and
 * waits until each answers. Throws a DependencyError naming what could not be had (a server on another
 * host, an image neither present nor pullable, one that never answered); containers already started stay.
 */
export async function startDevDependencies(
  unreachable: readonly UnreachableDependency[],
  engine: EngineCandidate,
  images: Record<DevDependencyKind, DevDependencyImage>,
): Promise<StartedDevDependencies> {
  const planned = unreachable.map((dependency) => ({
    dependency,
    spec: devContainerSpec(dependency.kind, dependency.url, images[dependency.kind]),
  }));
  const elsewhere = planned.filter((p) => typeof p.spec === 'string').map((p) => describeMissing(p.dependency, images[p.dependency.kind]));
  if (elsewhere.length > 0) {
    throw new MissingDependenciesError(elsewhere);
  }
  const docker = new Docker({ socketPath: engine.socket });
  const outcomes = await Promise.allSettled(planned.map(({ dependency, spec }) => startOne(docker, dependency, spec as DevContainerSpec)));
  const failures = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [`${planned[i]?.dependency.name}: ${messageOf(o.reason)}`] : []));
  if (failures.length > 0) {
    throw new MissingDependenciesError(failures, `(the container engine: ${engine.source} ${engine.socket})`);
  }
  return {
    lines: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])),
    containers: planned.map(({ spec }) => (spec as DevContainerSpec).name),
  };
}

async function startOne(docker: Docker, dependency: UnreachableDependency, spec: DevContainerSpec): Promise<string> {
  const { outcome, image } = await ensureDevContainer(docker, spec);
  await waitUntilServing(spec.kind, dependency.url);
  const what = outcome === 'created' ? 'started as a container' : `reused the container (${outcome})`;
  return `${dependency.name} was not reachable at ${dependency.host}:${dependency.port}: ${what} ${spec.name}, image ${image}`;
}

function messageOf(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  return typeof json?.message === 'string' ? json.message : error instanceof Error ? error.message : String(error);
}
