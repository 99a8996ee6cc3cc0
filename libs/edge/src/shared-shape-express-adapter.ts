import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { closeServer } from '@wrs/problem';
import type { Express } from 'express';

/**
 * Express gives each request and response its app's prototype with `Object.setPrototypeOf`; every
 * property added after that (Express's, the router's, ours) made a hidden class of that object's own.
 * So no two requests shared a shape: every property access in the request's path missed V8's inline
 * caches, and each request allocated its own maps (a 1 KB descriptor array per request and response,
 * kept for an SSE stream's life). Here the server makes requests and responses whose class already has
 * the app's prototype, so Express's swap is a no-op and they all share one shape. Measured with a
 * no-op Express route at 32 connections: 4,011-4,056 -> 6,748-9,572 req/s, 234-253 -> 98-145 µs of
 * CPU per request (docs/performance.md, 2026-11-25).
 */
export class SharedShapeExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    const Request = classWithPrototypeOf(IncomingMessage, app.request);
    const Response = classWithPrototypeOf(ServerResponse, app.response);
    // The classes' prototypes take the app objects' place: Express's `setPrototypeOf(req, app.request)` finds it done.
    app.request = Request.prototype as Express['request'];
    app.response = Response.prototype as Express['response'];
    this.setHttpServer(createServer({ IncomingMessage: Request, ServerResponse: Response }, app));
  }

  /** Nest's close: connections with no request end at once, the others after their answer (closeServer). */
  override async close(): Promise<void> {
    const server = this.getHttpServer() as Server | undefined;
    const closing = server ? closeServer(server) : Promise.resolve();
    // Nest's own close too (forceCloseConnections); its server.close of the stopped server answers at once.
    await super.close();
    await closing;
  }
}

/**
 * A subclass of Node's request (response) whose prototype carries everything the app's own request
 * (response) object has: Express's methods through its prototype chain, and `app` as its own property.
 */
function classWithPrototypeOf<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, appObject: object): T {
  const Shaped = class extends (base as new (...args: never[]) => object) {};
  Object.setPrototypeOf(Shaped.prototype, Object.getPrototypeOf(appObject) as object);
  Object.defineProperties(Shaped.prototype, Object.getOwnPropertyDescriptors(appObject));
  // Logs and stack traces name them as before (IncomingMessage, ServerResponse), not as this helper's class.
  Object.defineProperty(Shaped, 'name', { value: base.name });
  return Shaped as unknown as T;
}
