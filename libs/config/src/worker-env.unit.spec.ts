import { loadConfig } from './load-config';
import { WorkerEnv, workerDatabasePoolSize } from './worker-env';

const required = {
  DATABASE_URL: 'postgres://wrs@127.0.0.1:5432/wrs',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

describe('WEBHOOK_SENDERS and the run-worker pool', () => {
  it('takes 1 to 32 senders, 4 by default, as before', () => {
    expect(loadConfig(WorkerEnv, required).WEBHOOK_SENDERS).toBe(4);
    for (const senders of [1, 7, 32]) {
      expect(loadConfig(WorkerEnv, { ...required, WEBHOOK_SENDERS: String(senders) }).WEBHOOK_SENDERS).toBe(senders);
    }
  });

  it('gives every sender a connection of its own beside the six that dispatch and the projection use', () => {
    expect(workerDatabasePoolSize(4)).toBe(10);
    expect(workerDatabasePoolSize(32)).toBe(38);
  });
});
