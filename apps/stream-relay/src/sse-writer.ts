import type { Response } from 'express';

/** Writes Server-Sent Events, waiting for the socket to drain so a slow client cannot grow our buffers. */
export class SseWriter {
  constructor(private readonly res: Response) {}

  open(retryMs: number): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.setHeader('Connection', 'keep-alive');
    this.res.flushHeaders();
    this.res.write(`retry: ${retryMs}\n\n`);
  }

  async event(id: number, type: string, data: string): Promise<void> {
    await this.write(`id: ${id}\nevent: ${type}\ndata: ${data}\n\n`);
  }

  heartbeat(): void {
    this.res.write(': heartbeat\n\n');
  }

  end(): void {
    this.res.end();
  }

  private write(chunk: string): Promise<void> {
    if (this.res.write(chunk)) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.once('drain', done);
      this.res.once('close', done);
    });
  }
}
