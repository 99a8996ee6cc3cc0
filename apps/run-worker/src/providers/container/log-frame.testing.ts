/** One frame of the engine's multiplexed log stream: the stream (1 stdout, 2 stderr), the size, the bytes. */
export function frame(stream: 1 | 2, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}
