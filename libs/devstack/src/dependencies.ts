import { connect } from 'node:net';
import { addressOf, devContainerSpec, runCommand } from './dev-dependency-container';
import { DEV_DEPENDENCY_KINDS, type DevDependencyImage, type DevDependencyKind } from './dev-dependency-images';

type Variable = 'NATS_URL' | 'DATABASE_URL' | 'REDIS_URL';

const DEPENDENCIES: Record<DevDependencyKind, { readonly name: string; readonly variable: Variable; readonly defaultPort: number }> = {
  nats: { name: 'NATS (with JetStream)', variable: 'NATS_URL', defaultPort: 4222 },
  postgres: { name: 'PostgreSQL', variable: 'DATABASE_URL', defaultPort: 5432 },
  redis: { name: 'Redis', variable: 'REDIS_URL', defaultPort: 6379 },
};

/** A server the stack needs that does not accept a connection where the configuration says it is. */
export interface UnreachableDependency {
  readonly kind: DevDependencyKind;
  readonly name: string;
  readonly variable: Variable;
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly problem: string;
}

/**
 * Which of NATS, Postgres and Redis do not accept a connection where the configuration says they are.
 * Only a TCP connect: the services' own start-up says more if a server is there but refuses them.
 */
export async function unreachableDependencies(urls: Record<Variable, string>, timeoutMs = 3000): Promise<UnreachableDependency[]> {
  const answers = await Promise.all(
    DEV_DEPENDENCY_KINDS.map(async (kind) => {
      const { name, variable, defaultPort } = DEPENDENCIES[kind];
      const url = urls[variable];
      const { host, port } = addressOf(url, defaultPort);
      const problem = await tcpProblem(host, port, timeoutMs);
      return problem === undefined ? undefined : { kind, name, variable, url, host, port, problem };
    }),
  );
  return answers.filter((a): a is UnreachableDependency => a !== undefined);
}

/** The line naming what is missing, with the command that starts it (podman takes the same arguments). */
export function describeMissing(dependency: UnreachableDependency, image: DevDependencyImage): string {
  const { name, host, port, variable, problem } = dependency;
  const spec = devContainerSpec(dependency.kind, dependency.url, image);
  const remedy = typeof spec === 'string' ? `${spec}: start it there, or point ${variable} at one` : `To start one: ${runCommand(spec)}`;
  return `${name} at ${host}:${port} (${variable}): ${problem}. ${remedy}`;
}

function tcpProblem(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`no answer within ${timeoutMs} ms`);
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'nothing listens there' : (error.code ?? error.message)),
    );
  });
}

/** The stack cannot start without them: one message for the operator (runService prints it without a trace). */
export class MissingDependenciesError extends Error {
  constructor(missing: readonly string[], hint?: string) {
    super(`the stack needs servers that are not reachable:\n${missing.map((m) => `  - ${m}`).join('\n')}${hint ? `\n${hint}` : ''}`);
    // runService prints errors of this name as their message alone, as for a service's own dependencies.
    this.name = 'DependencyError';
  }
}
