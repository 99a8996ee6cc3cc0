import { KEPT_LINE_LENGTH } from '../log-lines';
import { demultiplexLogs, LogDemultiplexer } from './log-frames';
import { frame } from './log-frame.testing';

/**
 * The lines of a whole log, read another way: each stream's bytes gathered, a line cut at each newline byte
 * and decoded whole (so a character split between frames is whole), CRLF taken as one ending, a line kept
 * up to one character past the kept length (storableLine cuts there); partial lines last, stdout first.
 */
function readWhole(raw: Buffer): { stream: 'stdout' | 'stderr'; line: string }[] {
  const lines: { stream: 'stdout' | 'stderr'; line: string }[] = [];
  const partial: Record<'stdout' | 'stderr', Buffer> = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  const lineOf = (bytes: Buffer): string => {
    const text = bytes.toString('utf8').slice(0, KEPT_LINE_LENGTH + 1);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset] === 2 ? 'stderr' : 'stdout';
    const size = raw.readUInt32BE(offset + 4);
    let bytes = Buffer.concat([partial[stream], raw.subarray(offset + 8, offset + 8 + size)]);
    offset += 8 + size;
    for (let newline = bytes.indexOf(10); newline >= 0; newline = bytes.indexOf(10)) {
      lines.push({ stream, line: lineOf(bytes.subarray(0, newline)) });
      bytes = bytes.subarray(newline + 1);
    }
    partial[stream] = bytes;
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    if (partial[stream].length > 0) {
      lines.push({ stream, line: lineOf(partial[stream]) });
    }
  }
  return lines;
}

/** Feeds `raw` in chunks cut at `cuts` (byte offsets), then ends. */
function inChunks(raw: Buffer, cuts: number[]) {
  const demultiplexer = new LogDemultiplexer();
  const lines = [];
  let from = 0;
  for (const cut of [...cuts, raw.length]) {
    lines.push(...demultiplexer.push(raw.subarray(from, cut)));
    from = cut;
  }
  return [...lines, ...demultiplexer.end()];
}

const euro = Buffer.from('€', 'utf8');
// Both streams' partial lines interleaved, an empty line, an empty frame, a character cut between two
// frames (decoded whole), a long line over several frames (kept up to its first characters), no final newline.
const LOG = Buffer.concat([
  frame(1, 'one\ntw'),
  frame(2, 'err-a'),
  frame(1, 'o\n\nthree'),
  frame(2, '-b\n'),
  frame(1, ''),
  frame(1, euro.subarray(0, 1)),
  frame(1, Buffer.concat([euro.subarray(1), Buffer.from('\n')])),
  frame(2, 'x'.repeat(70_000)),
  frame(2, 'y'.repeat(70_000) + '\nlast-err'),
  frame(1, 'ünïcödé ✓\nlast-out'),
]);

describe('LogDemultiplexer', () => {
  it('gives the whole read its lines, at every single cut of the stream', () => {
    const whole = readWhole(LOG);
    expect(whole.map((l) => l.line.slice(0, 12))).toEqual([
      'one',
      'two',
      '',
      'err-a-b',
      'three€',
      'xxxxxxxxxxxx',
      'ünïcödé ✓',
      'last-out',
      'last-err',
    ]);
    expect(demultiplexLogs(LOG)).toEqual(whole);
    const small = LOG.subarray(0, 120);
    for (let cut = 0; cut <= small.length; cut++) {
      expect(inChunks(small, [cut])).toEqual(readWhole(small));
    }
  });

  it('gives the same lines when the stream comes byte by byte, or in uneven chunks', () => {
    const whole = readWhole(LOG);
    expect(
      inChunks(
        LOG,
        Array.from({ length: LOG.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(whole);
    expect(inChunks(LOG, [3, 7, 9, 50, 65_000, 65_001, 140_050])).toEqual(whole);
  });

  it('hands out complete lines as their chunk comes, and partial lines only at the end', () => {
    const demultiplexer = new LogDemultiplexer();
    const first = frame(1, 'a\nb');
    expect(demultiplexer.push(first.subarray(0, 5))).toEqual([]);
    expect(demultiplexer.push(first.subarray(5))).toEqual([{ stream: 'stdout', line: 'a' }]);
    expect(demultiplexer.push(frame(2, 'c'))).toEqual([]);
    expect(demultiplexer.end()).toEqual([
      { stream: 'stdout', line: 'b' },
      { stream: 'stderr', line: 'c' },
    ]);
  });

  it('keeps what a frame cut short by the end brought, and drops a header cut short, as the whole read did', () => {
    const cutBody = Buffer.concat([frame(1, 'done\n'), frame(2, 'half of it\nmore').subarray(0, 14)]);
    expect(readWhole(cutBody)).toEqual([
      { stream: 'stdout', line: 'done' },
      { stream: 'stderr', line: 'half o' },
    ]);
    expect(inChunks(cutBody, [10])).toEqual(readWhole(cutBody));
    const cutHeader = Buffer.concat([frame(1, 'done'), Buffer.from([2, 0, 0])]);
    expect(readWhole(cutHeader)).toEqual([{ stream: 'stdout', line: 'done' }]);
    expect(inChunks(cutHeader, [13])).toEqual(readWhole(cutHeader));
  });

  it('takes a CRLF line ending whole, also when the CR and the LF come in different chunks; a CR inside a line stays', () => {
    const raw = Buffer.concat([frame(1, 'windows\r'), frame(1, '\nprogress 10%\rprogress 20%\r\n'), frame(2, 'no newline\r')]);
    const expected = [
      { stream: 'stdout', line: 'windows' },
      { stream: 'stdout', line: 'progress 10%\rprogress 20%' },
      { stream: 'stderr', line: 'no newline' },
    ];
    expect(demultiplexLogs(raw)).toEqual(expected);
    for (let cut = 0; cut <= raw.length; cut++) {
      expect(inChunks(raw, [cut])).toEqual(expected);
    }
  });

  it('keeps a line without a newline to its first characters, however long the workload writes it', () => {
    const demultiplexer = new LogDemultiplexer();
    const chunk = frame(1, 'y'.repeat(8_192));
    for (let i = 0; i < 1_000; i++) {
      expect(demultiplexer.push(chunk)).toEqual([]); // 8 MB without a newline
    }
    const [line] = demultiplexer.push(frame(1, 'end\n'));
    expect(line?.line).toBe('y'.repeat(KEPT_LINE_LENGTH + 1));
    expect(demultiplexer.end()).toEqual([]);
  });
});
