import { connect } from 'node:net';

/** A server the stack needs, where it is expected, and one command that gets it there. */
interface Dependency {
  readonly name: string;
  readonly variable: 'NATS_URL' | 'DATABASE_URL' | 'REDIS_URL';
  readonly defaultPort: number;
  /** The images docker/compose.yaml uses, published on the default loopback port. */
  readonly command: string;
}

const DEPENDENCIES: readonly Dependency[] = [
  { name: 'NATS (with JetStream)', variable: 'NATS_URL', defaultPort: 4222, command: 'docker run -d --name wrs-nats -p 127.0.0.1:4222:4222 nats:2.12.2-alpine -js' },
  {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    defaultPort: 5432,
    command: 'docker run -d --name wrs-postgres -p 127.0.0.1:5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15.14-alpine',
  },
  { name: 'Redis', variable: 'REDIS_URL', defaultPort: 6379, command: 'docker run -d --name wrs-redis -p 127.0.0.1:6379:6379 redis:7.4.6-alpine' },
];

/**
 * Which of NATS, Postgres and Redis do not accept a connection where the configuration says they are,
 * each with the command that starts one (podman takes the same arguments). Empty when all are there.
 * Only a TCP connect: the services' own start-up says more if a server is there but refuses them.
 */
export async function missingDependencies(urls: Record<Dependency['variable'], string>, timeoutMs = 3000): Promise<string[]> {
  const answers = await Promise.all(
    DEPENDENCIES.map(async (dep) => {
      const url = urls[dep.variable];
      const { host, port } = addressOf(url, dep.defaultPort);
      const problem = await tcpProblem(host, port, timeoutMs);
      return problem === undefined ? undefined : `${dep.name} at ${host}:${port} (${dep.variable}): ${problem}. To start one: ${dep.command}`;
    }),
  );
  return answers.filter((a): a is string => a !== undefined);
}

function addressOf(url: string, defaultPort: number): { host: string; port: number } {
  // NATS_URL may also be a bare host:port.
  const parsed = new URL(url.includes('://') ? url : `nats://${url}`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) || defaultPort };
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
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'nothing listens there' : (error.code ?? error.message)));
  });
}

/** The stack cannot start without them: one message for the operator (runService prints it without a trace). */
export class MissingDependenciesError extends Error {
  constructor(missing: readonly string[]) {
    super(`the stack needs servers that are not reachable:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
    // runService prints errors of this name as their message alone, as for a service's own dependencies.
    this.name = 'DependencyError';
  }
}
