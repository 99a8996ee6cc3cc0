import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrs } from './spawned';
import { startStack, type StackFixture } from './stack-fixture';

/** Streams end after this (SSE_MAX_DURATION_SECONDS), with a heartbeat each second before. */
const MAX_STREAM_SECONDS = 2;
/**
 * Long enough for well over 8 stream ends even at the longest backoff the client drew before: 8 ends
 * without an event made `--follow` give up (exit 5) on a run that was fine.
 */
const RUN_MS = 45_000;

/** The built `wrs --follow` against the compiled stack whose relay ends every stream after 2 s. */
describe('wrs --follow of a quiet run across many stream ends', () => {
  let f: StackFixture;

  beforeAll(async () => {
    f = await startStack(['ws-quiet'], {
      PROVIDERS_JSON: JSON.stringify([{ provider: 'simulator', regions: ['local-1'], priority: 0 }]),
      SSE_MAX_DURATION_SECONDS: String(MAX_STREAM_SECONDS),
      SSE_HEARTBEAT_MS: '1000',
    });
  });

  afterAll(async () => {
    await f?.stop();
  });

  it('resumes after each end its heartbeats showed healthy, and exits 0 when the run succeeds', async () => {
    const env = { HOME: mkdtempSync(join(tmpdir(), 'wrs-home-')), WRS_BASE_URL: f.stack.baseUrl, WRS_TOKEN: f.token('ws-quiet') };
    const started = Date.now();
    const run = await wrs(
      [
        'runs',
        'create',
        '--image',
        'busybox',
        '--provider',
        'simulator',
        '--region',
        'local-1',
        '--env',
        `SIM_DURATION_MS=${RUN_MS}`,
        '--follow',
      ],
      env,
    );
    expect(run.stderr).not.toContain('kept ending without events');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\] running\n[^]*\] succeeded \(exit 0\)\n$/);
    // It followed the whole run, so its streams ended many times over.
    expect(Date.now() - started).toBeGreaterThan(RUN_MS);
  }, 120_000);
});
