import type { Response } from 'express';

/**
 * Writes Server-Sent Events. A slow client (over `maxBufferedBytes` queued, or no drain within
 * `drainTimeoutMs`) is cut off rather than buffered, and resumes from its last id on any replica.
 */
export class SseWriter {
  private cut = false;

  constructor(
    readonly res: Response,
    private readonly limits: { maxBufferedBytes: number; drainTimeoutMs: number },
  ) {}

  get closed(): boolean {
    return this.cut || this.res.destroyed;
  }

  open(retryMs: number): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-store');
    this.res.setHeader('X-Accel-Buffering', 'no');
    // No Connection header: whether the socket is kept is the client's and Node's to decide, and a
    // keep-alive forced on a client that asked for close leaves a proxy's pooled socket unusable.
    this.res.flushHeaders();
    this.res.write(`retry: ${retryMs}\n\n`);
  }

  /** Writes an event; a promise only when the socket is full (it settles once drained, or the client is cut). */
  event(id: number, type: string, data: string): void | Promise<void> {
    return this.write(`id: ${id}\nevent: ${type}\ndata: ${data}\n\n`);
  }

  /** An event already framed (`sseFrameOf`): the same bytes for every stream that sends it. */
  frame(frame: Buffer): void | Promise<void> {
    return this.write(frame);
  }

  heartbeat(): void {
    this.comment('heartbeat');
  }

  /** A comment line: clients ignore it (an EventSource dispatches nothing, its last event id stays). */
  comment(text: string): void {
    if (!this.closed) {
      this.res.write(`: ${text}\n\n`);
    }
  }

  /** Ends the stream; a client that still has not taken what was sent is cut after the drain time-out. */
  end(): void {
    if (this.res.destroyed) {
      return;
    }
    this.res.end();
    if (this.res.writableLength > 0) {
      setTimeout(() => this.res.destroy(), this.limits.drainTimeoutMs).unref();
    }
  }

  private write(chunk: string | Buffer): void | Promise<void> {
    if (this.closed) {
      return;
    }
    if (this.res.write(chunk)) {
      return;
    }
    if (this.res.writableLength > this.limits.maxBufferedBytes) {
      this.disconnect();
      return;
    }
    return this.drained();
  }

  private async drained(): Promise<void> {
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.limits.drainTimeoutMs);
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = (): void => done(true);
      const onClose = (): void => done(false);
      this.res.once('drain', onDrain);
      this.res.once('close', onClose);
    });
    if (!drained) {
      this.disconnect();
    }
  }

  private disconnect(): void {
    this.cut = true;
    this.res.destroy();
  }
}
