/**
 * Where a test run's NATS, Postgres and Redis are. The Jest global setup decides once per run
 * (Testcontainers when a container engine answers, else the servers named by the environment) and
 * hands the answer to the test workers through these variables.
 */
export interface TestInfrastructure {
  readonly natsUrl: string;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly source: 'testcontainers' | 'environment';
}

export const INFRA_ENV = {
  nats: 'WRS_TEST_NATS_URL',
  database: 'WRS_TEST_DATABASE_URL',
  redis: 'WRS_TEST_REDIS_URL',
  source: 'WRS_TEST_INFRA_SOURCE',
} as const;

export function testInfrastructure(env: NodeJS.ProcessEnv = process.env): TestInfrastructure {
  return {
    natsUrl: env[INFRA_ENV.nats] ?? env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    databaseUrl: env[INFRA_ENV.database] ?? env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env[INFRA_ENV.redis] ?? env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    source: env[INFRA_ENV.source] === 'testcontainers' ? 'testcontainers' : 'environment',
  };
}
