import { createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { servicesReading } from '@wrs/config';
import { ensureDevCredentialKeys } from '@wrs/credentials';
import { freePort, STACK_MANAGED_VARIABLES } from '@wrs/devstack';
import { accessClaims, ContractClient, isolatedEnvironment, readSse, signJwt, testSigningKey } from '@wrs/testing';
import { tmpdir } from 'node:os';
import { npmStart, type NpmStart } from './npm-start-fixture';

const ROOT = join(__dirname, '..', '..', '..');

/** The variables docs/configuration.md documents: every backticked name in the first column of its tables. */
function documentedVariables(): string[] {
  const table = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  return [...new Set(rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)))];
}

/** The process ids of a process's children, with the main each runs (from /proc). */
function childrenOf(pid: number): Array<{ pid: number; main: string }> {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        // The parent is the 4th field of stat, after the command in parentheses.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const main = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[1] ?? '';
        return parent === pid ? [{ pid: Number(entry), main }] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

function environOf(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

const SERVICE_OF_MAIN: Array<[RegExp, string]> = [
  [/apps\/api\/src\/main\.js$/, 'api'],
  [/apps\/stream-relay\/src\/main\.js$/, 'stream-relay'],
  [/apps\/run-worker\/src\/main\.js$/, 'run-worker'],
  [/apps\/gateway\/src\/main\.js$/, 'gateway'],
];

describe('npm start hands every documented variable to the services that read it', () => {
  let stack: NpmStart;
  let jwks: Server;
  let values: Record<string, string>;
  const issuer = 'config-test-issuer';
  const audience = 'config-test-audience';
  const signing = testSigningKey();

  beforeAll(async () => {
    // Tokens are verified with this JWKS (AUTH_JWKS_URL wins over AUTH_PUBLIC_KEY_FILE), signed by the test key.
    const jwk = { ...createPublicKey(signing.key.privateKey).export({ format: 'jwk' }), kid: signing.key.kid, alg: 'EdDSA', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const infra = await isolatedEnvironment();
    const keys = ensureDevCredentialKeys(mkdtempSync(join(tmpdir(), 'wrs-config-kek-')));
    // A valid value, other than the default, for every documented variable.
    values = {
      NATS_URL: infra.natsUrl,
      DATABASE_URL: infra.databaseUrl,
      REDIS_URL: infra.redisUrl,
      IDEMPOTENCY_RETENTION_SECONDS: '7200',
      JETSTREAM_REPLICAS: '1',
      API_PORT: String(await freePort()),
      RELAY_PORT: String(await freePort()),
      AUTH_PUBLIC_KEY_FILE: signing.publicKeyFile,
      AUTH_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`,
      AUTH_TOKEN_MAX_TTL_SECONDS: '900',
      SESSION_TTL_SECONDS: '600',
      CORS_ORIGINS: 'http://console.example.test',
      CREDENTIALS_KEK_PUBLIC_KEYS: `cfg:${keys.publicFile}`,
      CREDENTIALS_KEK_PRIVATE_KEYS: `cfg:${keys.privateFile}`,
      CREDENTIALS_FINGERPRINT_KEY_FILE: keys.fingerprintKeyFile,
      AUTH_ISSUER: issuer,
      AUTH_AUDIENCE: audience,
      PROVIDERS_JSON: JSON.stringify([{ provider: 'lab', kind: 'simulator', regions: ['r9'], priority: 0 }]),
      RECONCILE_INTERVAL_MS: '75',
      RECONCILE_MAX_INTERVAL_MS: '4000',
      JETSTREAM_ACK_WAIT_MS: '25000',
      PROVIDER_UNRESPONSIVE_SECONDS: '240',
      PROVIDER_PROBE_INTERVAL_MS: '5000',
      WORKLOAD_CLEANUP_INTERVAL_MS: '60000',
      WORKLOAD_ORPHAN_GRACE_SECONDS: '300',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      KUBERNETES_ALLOWED_PRIVATE_RANGES: '10.20.0.0/16',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_MAX_RESPONSE_BYTES: '1024',
      WEBHOOK_RETRY_BASE_MS: '2000',
      WEBHOOK_RETRY_MAX_DELAY_MS: '60000',
      WEBHOOK_MAX_ATTEMPTS: '5',
      WEBHOOK_SENDERS: '2',
      SSE_HEARTBEAT_MS: '5000',
      SSE_MAX_DURATION_SECONDS: '900',
      SSE_MAX_BUFFERED_BYTES: '2097152',
      SSE_DRAIN_TIMEOUT_MS: '20000',
      SSE_MAX_STREAMS_PER_WORKSPACE: '7',
      LIMIT_REQUESTS_PER_MINUTE: '5000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '4000',
      LIMIT_ACTIVE_RUNS: '9',
      LOG_LEVEL: 'debug',
      METRICS_HOST: '127.0.0.2',
      SHUTDOWN_DELAY_MS: '50',
      STARTUP_WAIT_SECONDS: '30',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}`,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: '1',
      PUBLIC_ORIGINS: 'http://runs.example.test',
      AUTH_FAILURES_PER_MINUTE: '120',
      TRUSTED_PROXIES: 'loopback,linklocal',
      HTTP_HEADERS_TIMEOUT_MS: '12000',
      HTTP_REQUEST_TIMEOUT_MS: '40000',
      GATEWAY_HEADERS_TIMEOUT_MS: '12000',
      GATEWAY_REQUEST_TIMEOUT_MS: '40000',
      GATEWAY_IDLE_TIMEOUT_MS: '130000',
      GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '50000',
      GATEWAY_MAX_CONNECTIONS: '5000',
      GATEWAY_RESTART_GRACE_MS: '6000',
      // 0.0.0.0 includes 127.0.0.1, where the gateway and the base URL reach the services.
      HOST: '0.0.0.0',
      BUILD_COMMIT: 'cfg1234',
      STACK_START_TIMEOUT_MS: '240000',
      // PROVIDERS_JSON has no container offer: the socket is handed on, never used.
      CONTAINER_ENGINE_SOCKET: '/nonexistent/cfg-engine.sock',
      // A crash site no code has: handed on, never hit.
      FAILPOINT: 'cfg.unarmed',
    };
    await infra.cleanup();
    // NAMESPACE, DATABASE_SCHEMA, PORT and DEV_KEYS_DIR are set by the fixture (an isolated corner, a free port, a temp folder).
    stack = await npmStart(values);
  });

  afterAll(async () => {
    await stack?.stop();
    jwks?.close();
  });

  it('has a test value for every documented variable a service reads (add one when you document a variable)', () => {
    const documented = documentedVariables();
    expect(documented.length).toBeGreaterThan(30);
    const fixture = ['NAMESPACE', 'DATABASE_SCHEMA', 'PORT', 'DEV_KEYS_DIR'];
    const untested = documented.filter((v) => !(v in values) && !fixture.includes(v) && !STACK_MANAGED_VARIABLES.includes(v));
    expect(untested).toEqual([]);
  });

  it('each reaches every process whose configuration schema reads it, with the value given', () => {
    const children = childrenOf(stack.process.pid!);
    const missing: string[] = [];
    for (const [pattern, service] of SERVICE_OF_MAIN) {
      const child = children.find((c) => pattern.test(c.main));
      expect(child).toBeDefined();
      const env = environOf(child!.pid);
      for (const [name, value] of Object.entries(values)) {
        if ((servicesReading(name) as string[]).includes(service) && env[name] !== value) {
          missing.push(`${name} in ${service}: ${env[name] === undefined ? 'unset' : 'another value'}`);
        }
      }
    }
    expect(missing).toEqual([]);
    // The stack's own ports: API_PORT and RELAY_PORT become those services' PORT.
    const portOf = (pattern: RegExp): string | undefined => environOf(children.find((c) => pattern.test(c.main))!.pid)['PORT'];
    expect(portOf(SERVICE_OF_MAIN[0]![0])).toBe(values['API_PORT']);
    expect(portOf(SERVICE_OF_MAIN[1]![0])).toBe(values['RELAY_PORT']);
  });

  it("the services use them: issuer, audience and JWKS accept the token; limits and stream settings are published; runs go to PROVIDERS_JSON's provider", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = signJwt(
      { alg: 'EdDSA', typ: 'at+jwt', kid: signing.key.kid },
      accessClaims('cfg', { iss: issuer, aud: audience, iat: now, nbf: now, exp: now + 300 }),
      signing.key.privateKey,
    );
    // The workspace is created by npm run token, which the stack then refuses: its tokens are signed
    // with the development key, and this stack only trusts the JWKS.
    const minted = await stack.mint(['--workspace', 'cfg']);
    expect(minted.code).toBe(1);
    expect(minted.stderr).toContain(`the stack at ${stack.baseUrl} cannot see workspace cfg (401`);
    expect(minted.stdout).toBe('');
    const api = new ContractClient(stack.baseUrl);
    // BUILD_COMMIT given to npm start wins over the checkout's commit.
    expect((await api.call('GET /version', '/version')).body).toMatchObject({ build: { commit: 'cfg1234' } });
    const workspace = await api.call('GET /workspaces/current', '/workspaces/current', { token });
    expect(workspace.status).toBe(200);
    expect((workspace.body as { limits: unknown }).limits).toMatchObject({
      requestsPerMinute: 5000,
      tokenRequestsPerMinute: 4000,
      maxActiveRuns: 9,
      maxEventStreams: 7,
      idempotencyKeyRetentionSeconds: 7200,
      maxStreamDurationSeconds: 900,
      streamHeartbeatSeconds: 5,
      maxStreamBufferedBytes: 2097152,
    });
    const created = await api.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const { events } = await readSse(`${stack.baseUrl}/runs/${id}/events`, { authorization: `Bearer ${token}` }, { timeoutMs: 30_000 });
    const dispatched = events.find((e) => e.event === 'run.dispatched');
    expect((JSON.parse(dispatched?.data ?? '{}') as { data?: { placement?: unknown } }).data?.placement).toMatchObject({
      provider: 'lab',
      region: 'r9',
    });
    const wrong = await api.call('POST /runs', '/runs', {
      token,
      headers: { 'idempotency-key': randomUUID() },
      body: { workload: { image: 'busybox' }, provider: 'simulator', region: 'local-1' },
    });
    expect(wrong.status).toBe(400);
  }, 60_000);

  it('the operator ports listen on METRICS_HOST', async () => {
    const ops = /Operator ports[^:]*: (.*)/.exec(stack.output())?.[1] ?? '';
    const urls = [...ops.matchAll(/(\S+) (http:\/\/\S+?)(,|$)/g)].map((m) => m[2]!);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      expect(new URL(url).hostname).toBe('127.0.0.2');
      expect((await fetch(`${url}/health/live`)).status).toBe(200);
    }
  });
});
