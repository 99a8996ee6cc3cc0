import { PassThrough } from 'node:stream';
import { headOfLog } from './log-head';
import { frame } from './log-frame.testing';

describe('headOfLog: the first lines of an exited container’s log', () => {
  it('lets the stream go once it has the lines asked for', async () => {
    const stream = new PassThrough();
    const head = headOfLog(stream, 3, 5_000);
    stream.write(frame(1, 'a\nb\n'));
    stream.write(frame(2, 'c\nd\n'));
    expect((await head).map((l) => l.line)).toEqual(['a', 'b', 'c']);
    expect(stream.destroyed).toBe(true);
  });

  it('gives every line of a shorter log, its last one without a newline', async () => {
    const stream = new PassThrough();
    const head = headOfLog(stream, 1_000, 5_000);
    stream.end(Buffer.concat([frame(1, 'one\ntw'), frame(1, 'o')]));
    expect(await head).toEqual([
      { stream: 'stdout', line: 'one' },
      { stream: 'stdout', line: 'two' },
    ]);
  });

  it('fails when the stream fails, closes before its end, or brings nothing for the quiet time', async () => {
    const failing = new PassThrough();
    const failed = headOfLog(failing, 10, 5_000);
    failing.destroy(new Error('socket hang up'));
    await expect(failed).rejects.toThrow('socket hang up');

    const closing = new PassThrough();
    const closed = headOfLog(closing, 10, 5_000);
    closing.write(frame(1, 'a\n'));
    closing.destroy();
    await expect(closed).rejects.toThrow('before its end');

    const silent = new PassThrough();
    await expect(headOfLog(silent, 10, 20)).rejects.toThrow('sent nothing of the log for 20 ms');
    expect(silent.destroyed).toBe(true);
  });
});
