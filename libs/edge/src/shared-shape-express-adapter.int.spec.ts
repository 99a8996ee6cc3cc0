import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Module, Req } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger } from '@wrs/observability';
import { sendRequest } from '@wrs/testing';
import type { Express, Request } from 'express';
import { createHttpService } from './create-http-service';

@Controller('probe')
class ProbeController {
  @Get()
  probe(@Req() req: Request): object {
    return { app: req.app === app.getHttpAdapter().getInstance(), host: req.get('host') !== undefined, protocol: req.protocol };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

let app: NestExpressApplication;

/**
 * Requests and responses are made with the app's prototype already (shared-shape-express-adapter.ts),
 * so Express's own prototype swap changes nothing and they share one hidden class.
 */
describe('the HTTP services make requests and responses with the Express prototype already theirs', () => {
  let origin: string;

  beforeAll(async () => {
    app = await createHttpService(ProbeModule, {
      logger: createLogger('api', 'silent'),
      prefix: 'api/v1',
      operations: [{ method: 'get', template: '/probe' }],
      produces: ['application/json', 'application/problem+json'],
    });
    await app.listen(0, '127.0.0.1');
    origin = await app.getUrl();
  });

  afterAll(() => app.close());

  it('before Express sees them, their prototypes are the app request and response objects', async () => {
    const express = app.getHttpAdapter().getInstance() as Express;
    const seen: boolean[] = [];
    app.getHttpServer().prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push(Object.getPrototypeOf(req) === express.request, Object.getPrototypeOf(res) === express.response);
    });
    const res = await sendRequest('GET', `${origin}/api/v1/probe`);
    expect(res.status).toBe(200);
    expect(seen).toEqual([true, true]);
  });

  it('they still print as IncomingMessage and ServerResponse', async () => {
    const names: string[] = [];
    app.getHttpServer().prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      names.push(req.constructor.name, res.constructor.name);
    });
    expect((await sendRequest('GET', `${origin}/api/v1/probe`)).status).toBe(200);
    expect(names).toEqual(['IncomingMessage', 'ServerResponse']);
  });

  it("a route still gets Express's request: its app, its methods", async () => {
    const res = await sendRequest('GET', `${origin}/api/v1/probe`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ app: true, host: true, protocol: 'http' });
  });
});
