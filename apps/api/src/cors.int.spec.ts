import { contractDocument } from '@wrs/contracts';
import { migrate } from '@wrs/persistence';
import { isolatedEnvironment, testSigningKey, testToken, type IsolatedEnvironment } from '@wrs/testing';
import { startApi, type InProcessApi } from './in-process-api.testing';

/** Headers a browser lets a cross-origin page send, or read, without the server's say (the CORS safelists). */
const SAFELISTED_REQUEST = new Set(['accept', 'accept-language', 'content-language']);
const SAFELISTED_RESPONSE = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);
/** A page never reads it, whatever the server exposes (a forbidden response header name). */
const NEVER_EXPOSED = new Set(['set-cookie']);

/** Every header the contract names: those a request may send (header parameters) and those an answer carries. */
function contractHeaders(): { request: Set<string>; response: Set<string> } {
  const request = new Set<string>();
  const response = new Set<string>();
  const visit = (node: unknown, key?: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item) => visit(item));
    } else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (record['in'] === 'header' && typeof record['name'] === 'string') {
        request.add(record['name'].toLowerCase());
      }
      if (key === 'headers') {
        Object.keys(record).forEach((name) => response.add(name.toLowerCase()));
      }
      Object.entries(record).forEach(([childKey, child]) => visit(child, childKey));
    }
  };
  visit(contractDocument());
  return { request, response };
}

const listed = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

/**
 * A page on a configured origin (CORS_ORIGINS) calling the api with a cookie session: every header the
 * contract lets a request send passes the preflight, and every header it says an answer carries can be
 * read. Real api on a socket.
 */
describe('CORS for configured origins follows the contract', () => {
  const origin = 'https://console.example.test';
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-cors');
  const headers = contractHeaders();
  let env: IsolatedEnvironment;
  let api: InProcessApi;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    api = await startApi(env, publicKeyFile, { CORS_ORIGINS: origin });
    await api.deps.module.workspaces.ensure('ws-cors', 'Cors');
  });

  afterAll(async () => {
    await api?.close();
    await env?.cleanup();
  });

  it('the contract names the headers this test is about (it reads them, it does not list them)', () => {
    expect([...headers.request]).toEqual(
      expect.arrayContaining(['prefer', 'cancel-after', 'idempotency-key', 'if-match', 'last-event-id']),
    );
    expect([...headers.response]).toEqual(expect.arrayContaining(['preference-applied', 'etag', 'retry-after']));
  });

  it("a preflight allows every request header of the contract, and the origin's credentials", async () => {
    const wanted = [...headers.request].filter((h) => !SAFELISTED_REQUEST.has(h));
    const res = await fetch(`${api.url}/runs`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': wanted.join(', ') },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const allowed = listed(res.headers.get('access-control-allow-headers'));
    expect(wanted.filter((h) => !allowed.includes(h))).toEqual([]);
  });

  it('an answer exposes every answer header of the contract to the page', async () => {
    const res = await api.client.call('GET /workspaces/current', '/workspaces/current', { token, headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = listed(res.headers.get('access-control-expose-headers'));
    expect([...headers.response].filter((h) => !SAFELISTED_RESPONSE.has(h) && !NEVER_EXPOSED.has(h) && !exposed.includes(h))).toEqual([]);
  });
});
