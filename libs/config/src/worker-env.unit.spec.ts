import { ConfigError, loadConfig } from './load-config';
import { WorkerEnv } from './worker-env';

const required = {
  DATABASE_URL: 'postgres://wrs@127.0.0.1:5432/wrs',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

describe('WEBHOOK_SENDERS', () => {
  it('is 4 by default, and any value that leaves 4 of the worker pool of 10 is taken', () => {
    expect(loadConfig(WorkerEnv, required).WEBHOOK_SENDERS).toBe(4);
    expect(loadConfig(WorkerEnv, { ...required, WEBHOOK_SENDERS: '1' }).WEBHOOK_SENDERS).toBe(1);
    expect(loadConfig(WorkerEnv, { ...required, WEBHOOK_SENDERS: '6' }).WEBHOOK_SENDERS).toBe(6);
  });

  it('is refused at start when it would leave dispatch and the projection fewer than 4 connections, saying why', () => {
    for (const senders of ['7', '10', '32']) {
      const env = { ...required, WEBHOOK_SENDERS: senders };
      expect(() => loadConfig(WorkerEnv, env)).toThrow(ConfigError);
      expect(() => loadConfig(WorkerEnv, env)).toThrow(
        /WEBHOOK_SENDERS: .*must be at most 6: each sender holds one of the run-worker's 10 database connections/,
      );
    }
  });
});
