import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHttpService } from '@wrs/edge';
import { createLogger } from '@wrs/observability';
import { consoleMount } from './console-static';

@Module({})
class NoRoutesModule {}

/** The console's files as the api's start-up mounts them, on a real socket: a page's headers are theirs. */
describe('the console mount', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-'));
  let app: NestExpressApplication;
  let origin: string;

  beforeAll(async () => {
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'export {};');
    app = await createHttpService(NoRoutesModule, {
      logger: createLogger('api', 'silent'),
      prefix: 'api/v1',
      operations: [],
      produces: ['application/json', 'application/problem+json'],
      mounts: [consoleMount(dir)],
    });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves pages and assets with the console's CSP and the other headers of a page", async () => {
    for (const path of ['/console/', '/console/runs/abc', '/console/assets/app-1234.js']) {
      const res = await fetch(`${origin}${path}`);
      await res.text();
      expect([path, res.status]).toEqual([path, 200]);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp.split(';')).toEqual([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "img-src 'self' data:",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ]);
      // What frame-ancestors 'none' says, for browsers without it (helmet's default SAMEORIGIN would not).
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
