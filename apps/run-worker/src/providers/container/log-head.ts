import type { LogLine } from '../provider';
import type { FollowStream } from './log-follower';
import { LogDemultiplexer } from './log-frames';

/**
 * The first `count` lines of an exited container's log, read from the engine's stream and split as they
 * come: the stream is let go once they are in, so a log of millions of lines costs what its first lines
 * do (reading it whole took seconds and hundreds of MB, and past the engine-call bound failed the run).
 * Rejects when the stream fails, closes early, or brings nothing for `quietMs`.
 */
export function headOfLog(stream: FollowStream, count: number, quietMs: number): Promise<LogLine[]> {
  return new Promise((resolve, reject) => {
    const demultiplexer = new LogDemultiplexer();
    const lines: LogLine[] = [];
    let settled = false;
    const settle = (outcome: { lines: LogLine[] } | { error: unknown }): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(quiet);
      stream.destroy();
      if ('lines' in outcome) {
        resolve(outcome.lines.slice(0, count));
      } else {
        reject(outcome.error);
      }
    };
    const quiet = setTimeout(() => settle({ error: new Error(`the container engine sent nothing of the log for ${quietMs} ms`) }), quietMs);
    stream.on('data', (chunk: Buffer) => {
      quiet.refresh();
      lines.push(...demultiplexer.push(chunk));
      if (lines.length >= count) {
        settle({ lines });
      }
    });
    stream.on('end', () => settle({ lines: [...lines, ...demultiplexer.end()] }));
    stream.on('error', (error: unknown) => settle({ error }));
    stream.on('close', () => settle({ error: new Error('the container engine closed the log stream before its end') }));
    if (count <= 0) {
      settle({ lines: [] });
    }
  });
}
