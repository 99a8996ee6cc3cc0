import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { fetchResendingOnReset } from './reset-retry';

/** A server that drops the connection of its first `drops` requests without an answer, then answers 200. */
async function droppingServer(drops: number): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push(body);
      if (seen.length <= drops) {
        req.socket.destroy();
        return;
      }
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, seen };
}

describe('fetchResendingOnReset', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  const keyed = { 'idempotency-key': 'k1' };

  it('sends a keyed request whose connection closed before any answer once more, with the same body', async () => {
    const { server, url, seen } = await droppingServer(1);
    servers.push(server);
    const res = await fetchResendingOnReset(url, { method: 'POST', headers: keyed, body: '{"a":1}' });
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
    expect(seen).toEqual(['{"a":1}', '{"a":1}']);
  });

  it('sends a GET once more too', async () => {
    const { server, url, seen } = await droppingServer(1);
    servers.push(server);
    expect((await fetchResendingOnReset(url)).status).toBe(200);
    expect(seen).toEqual(['', '']);
  });

  it('never sends a POST without an Idempotency-Key again: the server may have acted on it', async () => {
    const { server, url, seen } = await droppingServer(1);
    servers.push(server);
    await expect(fetchResendingOnReset(url, { method: 'POST', body: 'x' })).rejects.toThrow('fetch failed');
    expect(seen).toEqual(['x']);
  });

  it('sends it only once more: a second close is the answer', async () => {
    const { server, url, seen } = await droppingServer(2);
    servers.push(server);
    await expect(fetchResendingOnReset(url, { method: 'POST', headers: keyed, body: 'x' })).rejects.toThrow('fetch failed');
    expect(seen).toEqual(['x', 'x']);
  });

  it('never sends a streamed body again', async () => {
    const { server, url, seen } = await droppingServer(1);
    servers.push(server);
    const body = Readable.toWeb(Readable.from([Buffer.from('once')])) as ReadableStream;
    await expect(fetchResendingOnReset(url, { method: 'POST', headers: keyed, body, duplex: 'half' } as RequestInit)).rejects.toThrow(
      'fetch failed',
    );
    expect(seen).toEqual(['once']);
  });

  it('leaves other failures alone (nothing listening)', async () => {
    const { server, url } = await droppingServer(0);
    await new Promise((resolve) => server.close(resolve));
    await expect(fetchResendingOnReset(url)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  });
});
