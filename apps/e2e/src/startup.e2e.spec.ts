import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@wrs/devstack';
import { testInfrastructure, testSigningKey } from '@wrs/testing';

const DIST = join(__dirname, '..', '..', '..', 'dist');

function runMain(main: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(DIST, main)], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('start-up failures an operator can read', () => {
  const infra = testInfrastructure();
  const { publicKeyFile } = testSigningKey();

  it('names a missing required variable and exits 1', async () => {
    const { code, stderr } = await runMain('apps/api/src/main.js', { NATS_URL: infra.natsUrl });
    expect(code).toBe(1);
    expect(stderr).toContain('AUTH_PUBLIC_KEY_FILE');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('names a malformed variable without echoing a secret in it', async () => {
    const { code, stderr } = await runMain('apps/run-worker/src/main.js', {
      DATABASE_URL: 'mysql://user:hunter2@db/x',
      RECONCILE_INTERVAL_MS: 'soon',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('DATABASE_URL');
    expect(stderr).toContain('RECONCILE_INTERVAL_MS');
    expect(stderr).not.toContain('hunter2');
  });

  it('says which dependency is down instead of printing a stack trace', async () => {
    const closed = await freePort();
    const { code, stderr } = await runMain('apps/api/src/main.js', {
      NATS_URL: `nats://127.0.0.1:${closed}`,
      AUTH_PUBLIC_KEY_FILE: publicKeyFile,
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot connect to NATS at nats://127.0.0.1:${closed}`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('says so when Postgres is down, hiding its password', async () => {
    const closed = await freePort();
    const { code, stderr } = await runMain('apps/run-worker/src/main.js', {
      NATS_URL: infra.natsUrl,
      DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${closed}/postgres`,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot connect to Postgres at postgres://postgres:***@127.0.0.1');
    expect(stderr).not.toContain('s3cret');
  });
});
