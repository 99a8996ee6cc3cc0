import { StringDecoder } from 'node:string_decoder';

/**
 * Splits an engine stream of newline-ended text (a pull's progress, the events: one JSON object a line)
 * into lines as its chunks come. Decoded as UTF-8 across chunks, so a character a chunk cuts stays whole.
 */
export class TextLines {
  private readonly decoder = new StringDecoder('utf8');
  private buffered = '';

  constructor(private readonly take: (line: string) => void) {}

  push(chunk: Buffer): void {
    const lines = (this.buffered + this.decoder.write(chunk)).split('\n');
    this.buffered = lines.pop() ?? '';
    lines.forEach((line) => this.take(line));
  }

  /** At the stream's end: the last line, if it had no newline. */
  end(): void {
    const last = this.buffered + this.decoder.end();
    this.buffered = '';
    if (last) {
      this.take(last);
    }
  }
}
