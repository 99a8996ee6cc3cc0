import { StringDecoder } from 'node:string_decoder';
import { KEPT_LINE_LENGTH, withoutLineEnding } from '../log-lines';
import type { LogLine } from '../provider';

type Stream = LogLine['stream'];

/** Each frame of the engine's multiplexed log stream starts with 8 bytes: the stream (1 stdout, 2 stderr) and the size (bytes 4..7, big-endian). */
const HEADER_BYTES = 8;

/**
 * Splits the engine's multiplexed log stream into lines per stream as it arrives: a frame or a line
 * may be split across chunks. Each stream is decoded as UTF-8 across its frames (Podman cuts a long line
 * into 8 KiB frames, which may split a character) and keeps its own partial line, so the lines are
 * exactly those of reading the whole log at once. A line is kept up to KEPT_LINE_LENGTH characters.
 */
export class LogDemultiplexer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The frame whose header is read and whose body has not fully arrived. */
  private frame: { stream: Stream; size: number } | undefined;
  private readonly partial: Record<Stream, string> = { stdout: '', stderr: '' };
  private readonly decoders: Record<Stream, StringDecoder> = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

  /** The lines `chunk` completes. */
  push(chunk: Buffer): LogLine[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const lines: LogLine[] = [];
    for (;;) {
      if (this.frame === undefined) {
        if (this.buffered < HEADER_BYTES) {
          return lines;
        }
        const header = this.take(HEADER_BYTES);
        this.frame = { stream: header[0] === 2 ? 'stderr' : 'stdout', size: header.readUInt32BE(4) };
      }
      if (this.buffered < this.frame.size) {
        return lines;
      }
      this.add(this.frame.stream, this.decoders[this.frame.stream].write(this.take(this.frame.size)), lines);
      this.frame = undefined;
    }
  }

  /** At the stream's end: the part of a frame cut short, then each stream's partial line (stdout first), as lines. */
  end(): LogLine[] {
    const lines: LogLine[] = [];
    if (this.frame !== undefined) {
      this.add(this.frame.stream, this.decoders[this.frame.stream].write(this.take(this.buffered)), lines);
      this.frame = undefined;
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      this.add(stream, this.decoders[stream].end(), lines);
      if (this.partial[stream]) {
        lines.push({ stream, line: withoutLineEnding(this.partial[stream]) });
        this.partial[stream] = '';
      }
    }
    return lines;
  }

  private add(stream: Stream, text: string, lines: LogLine[]): void {
    const parts = text.split('\n');
    const rest = parts.pop() ?? '';
    if (parts.length > 0) {
      // Only the new text is split: a long partial line is not scanned again for each frame.
      parts[0] = this.partial[stream] + parts[0];
      this.partial[stream] = '';
      parts.forEach((line) => lines.push({ stream, line: withoutLineEnding(line.slice(0, KEPT_LINE_LENGTH + 1)) }));
    }
    // One character past the kept length stays, so a CR ending a line of exactly that length is still seen as its ending.
    if (this.partial[stream].length <= KEPT_LINE_LENGTH) {
      this.partial[stream] = (this.partial[stream] + rest).slice(0, KEPT_LINE_LENGTH + 1);
    }
  }

  private take(bytes: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const rest = all.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return all.subarray(0, bytes);
  }
}

/** Splits the engine's multiplexed log stream, read whole, into lines per stream. */
export function demultiplexLogs(raw: Buffer): LogLine[] {
  const demultiplexer = new LogDemultiplexer();
  return [...demultiplexer.push(raw), ...demultiplexer.end()];
}
