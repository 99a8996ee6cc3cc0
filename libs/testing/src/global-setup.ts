import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { testImage } from './images';
import { INFRA_ENV } from './infrastructure';

declare global {
  var __WRS_CONTAINERS__: StartedTestContainer[] | undefined;
}

/**
 * Jest global setup of the integration and end-to-end tiers. With a reachable container engine (and
 * WRS_TEST_INFRA not set to `environment`), NATS, Postgres and Redis start in containers; otherwise
 * the tests use the servers named by NATS_URL, DATABASE_URL and REDIS_URL (loopback by default).
 */
export default async function globalSetup(): Promise<void> {
  const wanted = process.env['WRS_TEST_INFRA'];
  const reachable = wanted !== 'environment' && (await engineReachable());
  if (wanted === 'testcontainers' && !reachable) {
    // Asked for by name (CI's Testcontainers pass): falling back would run the tier on something else.
    throw new Error(
      `WRS_TEST_INFRA=testcontainers, but no container engine answers at ${process.env['DOCKER_HOST'] ?? 'the default socket'}`,
    );
  }
  if (!reachable) {
    process.env[INFRA_ENV.source] = 'environment';
    console.log('\n[test infrastructure] using the servers named by the environment');
    return;
  }
  const started = Date.now();
  const [nats, postgres, redis] = await Promise.all([
    new GenericContainer(testImage('nats'))
      .withCommand(['-js', '-p', '4222'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
    new GenericContainer(testImage('postgres'))
      .withEnvironment({ POSTGRES_USER: 'wrs', POSTGRES_PASSWORD: 'wrs', POSTGRES_DB: 'wrs' })
      .withCommand(['postgres', '-c', 'fsync=off', '-c', 'max_connections=300'])
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer(testImage('redis'))
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start(),
  ]);
  globalThis.__WRS_CONTAINERS__ = [nats, postgres, redis];
  process.env[INFRA_ENV.nats] = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  process.env[INFRA_ENV.database] = `postgres://wrs:wrs@${postgres.getHost()}:${postgres.getMappedPort(5432)}/wrs`;
  process.env[INFRA_ENV.redis] = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
  process.env[INFRA_ENV.source] = 'testcontainers';
  console.log(`\n[test infrastructure] Testcontainers: NATS, Postgres, Redis ready in ${Date.now() - started} ms`);
}

async function engineReachable(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
