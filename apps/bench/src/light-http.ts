import { Agent, request } from 'node:http';

/**
 * A lean HTTP client for the load generator: node:http on keep-alive sockets. `fetch` (undici) cost
 * the bench process close to half a core at 50 creates/s, on the same two cores as the stack.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export function postJson(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (error) {
            reject(error as Error);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an event stream, resolves once its first event (an `id:` line) has arrived, and closes it. */
export function firstEvent(url: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    // Its own socket: a stream closed half-read cannot go back to the pool.
    const req = request(url, { headers: { ...headers, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`event stream answered ${res.statusCode}`));
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.startsWith('id: ') || text.includes('\nid: ')) {
          req.destroy();
          resolve();
        }
      });
      res.on('end', () => reject(new Error('event stream ended before an event')));
    });
    req.on('error', (error) => reject(error));
    req.end();
  });
}
