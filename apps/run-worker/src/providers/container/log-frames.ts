/** Splits the engine's multiplexed log stream (8-byte frame headers) into lines per stream. */
export function demultiplexLogs(raw: Buffer): { stream: 'stdout' | 'stderr'; line: string }[] {
  const lines: { stream: 'stdout' | 'stderr'; line: string }[] = [];
  const partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset] === 2 ? 'stderr' : 'stdout';
    const size = raw.readUInt32BE(offset + 4);
    partial[stream] += raw.subarray(offset + 8, offset + 8 + size).toString('utf8');
    offset += 8 + size;
    const parts = partial[stream].split('\n');
    partial[stream] = parts.pop() ?? '';
    parts.forEach((line) => lines.push({ stream, line }));
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    if (partial[stream]) {
      lines.push({ stream, line: partial[stream] });
    }
  }
  return lines;
}
