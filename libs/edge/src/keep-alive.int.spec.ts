import { Agent, request } from 'node:http';
import { Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger } from '@wrs/observability';
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from '@wrs/problem';
import { createHttpService } from './create-http-service';

@Module({})
class NoRoutesModule {}

/** One GET on `agent`: its status, Keep-Alive header and whether it went over a reused connection. */
function get(url: string, agent: Agent): Promise<{ status: number; keepAlive: string | undefined; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive']?.toString(), reused: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * An idle keep-alive connection is closed by the client or the proxy in front, never first by the
 * service: Node's 5 s default raced undici's 4 s (a test's request met a reset on a busy machine) and
 * is shorter than the 60 s idle time of ingress-nginx and load balancers (their requests met resets).
 */
describe('idle keep-alive connections', () => {
  async function serviceWith(keepAliveTimeoutMs?: number): Promise<NestExpressApplication> {
    const app = await createHttpService(NoRoutesModule, {
      logger: createLogger('api', 'silent'),
      prefix: 'api/v1',
      operations: [],
      produces: ['application/json', 'application/problem+json'],
      bodyLimitBytes: 1024,
      edge: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, trustedProxies: 'loopback', keepAliveTimeoutMs },
    });
    await app.listen(0, '127.0.0.1');
    return app;
  }

  it('are kept 65 s by default, and say so; a second request reuses the connection', async () => {
    const app = await serviceWith();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const url = `${await app.getUrl()}/api/v1/nothing`;
      expect(DEFAULT_KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
      expect(await get(url, agent)).toEqual({ status: 404, keepAlive: 'timeout=65', reused: false });
      expect(await get(url, agent)).toEqual({ status: 404, keepAlive: 'timeout=65', reused: true });
    } finally {
      agent.destroy();
      await app.close();
    }
  });

  it('are kept as long as HTTP_KEEP_ALIVE_TIMEOUT_MS says', async () => {
    const app = await serviceWith(120_000);
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(`${await app.getUrl()}/api/v1/nothing`, agent)).keepAlive).toBe('timeout=120');
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});
