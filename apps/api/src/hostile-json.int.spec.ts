import { randomUUID } from 'node:crypto';
import { migrate } from '@wrs/persistence';
import { JSON_MAX_DEPTH } from '@wrs/problem';
import { isolatedEnvironment, testSigningKey, testToken, type ContractClient, type IsolatedEnvironment } from '@wrs/testing';
import fc from 'fast-check';
import { startApi, type InProcessApi } from './in-process-api.testing';

/** Every name Object.prototype gives an object, and the ones class-transformer and JS treat specially. */
const PROTOTYPE_NAMES = [
  ...Object.getOwnPropertyNames(Object.prototype),
  'prototype',
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOP = ['provider', 'region', 'workload'];
const WORKLOAD = ['image', 'command', 'args', 'env', 'timeoutSeconds', 'resources'];

interface Problem {
  status: number;
  code: string;
  params?: { errors?: { field: string; message: string }[] };
}

/**
 * Hostile JSON against the real api over a real socket: depth, width, prototype-named keys in every
 * object, huge numbers, unicode and NUL. Never a 5xx; every env key is kept as sent or refused by name.
 */
describe('hostile JSON bodies', () => {
  const { key, publicKeyFile } = testSigningKey();
  const token = testToken(key, 'ws-json');
  let env: IsolatedEnvironment;
  let api: InProcessApi;
  let client: ContractClient;

  beforeAll(async () => {
    env = await isolatedEnvironment();
    await migrate(env.database);
    // Thousands of runs are created: neither the rate nor the quota of unfinished runs is under test.
    api = await startApi(env, publicKeyFile, {
      LIMIT_REQUESTS_PER_MINUTE: '1000000',
      LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000',
      LIMIT_ACTIVE_RUNS: '1000000',
    });
    await api.deps.module.workspaces.ensure('ws-json', 'Hostile JSON');
    client = api.client;
  });

  afterAll(async () => {
    await api.close();
    await env.cleanup();
  });

  function createRun(body: unknown) {
    return client.call('POST /runs', '/runs', { token, headers: { 'idempotency-key': randomUUID() }, body });
  }

  it(`a body nested 6,000 deep is a 400 body_too_complex (it was a retryable 500); ${JSON_MAX_DEPTH} deep is read`, async () => {
    const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const res = await createRun(`{"workload":{"image":"busybox","args":${deep}},"provider":"auto","region":"auto"}`);
    expect([res.status, (res.body as Problem).code]).toEqual([400, 'body_too_complex']);
    const allowed = `${'['.repeat(JSON_MAX_DEPTH - 2)}${']'.repeat(JSON_MAX_DEPTH - 2)}`;
    const ok = await createRun(`{"workload":{"image":"busybox","args":${allowed}},"provider":"auto","region":"auto"}`);
    expect([ok.status, (ok.body as Problem).code]).toEqual([400, 'validation_failed']); // read, then refused by its rule
  });

  it('env keys named like Object.prototype members are kept as sent (constructor was a 500, toString dropped)', async () => {
    const names = PROTOTYPE_NAMES.filter((n) => n !== '__proto__' && ENV_NAME.test(n));
    const sent = Object.fromEntries(names.map((n, i) => [n, `v${i}`]));
    const res = await createRun({ workload: { image: 'busybox', env: sent }, provider: 'auto', region: 'auto' });
    expect(res.status).toBe(201);
    expect((res.body as { workload: { env: Record<string, string> } }).workload.env).toEqual(sent);
    const read = await client.call('GET /runs/{runId}', `/runs/${(res.body as { id: string }).id}`, { token });
    expect(Object.entries((read.body as { workload: { env: Record<string, string> } }).workload.env).sort()).toEqual(
      Object.entries(sent).sort(),
    );
  });

  it('env key __proto__ and prototype-named members are refused with a 400 naming them', async () => {
    const res = await createRun(
      `{"workload":{"image":"busybox","env":{"__proto__":"x","A":"1"},"constructor":{"x":1}},"provider":"auto","region":"auto","toString":1}`,
    );
    expect(res.status).toBe(400);
    const fields = ((res.body as Problem).params?.errors ?? []).map((e) => e.field).sort();
    expect(fields).toEqual(['toString', 'workload.constructor', 'workload.env.__proto__'].sort());
  });

  it('U+0000 and unpaired surrogates are refused by field (Postgres cannot store them: the run stayed queued, its events failing the projection forever)', async () => {
    const res = await createRun(
      '{"workload":{"image":"busybox","args":["a\\u0000b","\\ud83d\\ude42"],"command":["\\ud800"],"env":{"A":"\\udc00x","B\\u0000":"1"}},"provider":"auto","region":"auto"}',
    );
    expect([res.status, (res.body as Problem).code]).toEqual([400, 'validation_failed']);
    const fields = ((res.body as Problem).params?.errors ?? []).map((e) => e.field).sort();
    expect(fields).toEqual(['workload.args.0', 'workload.command.0', 'workload.env.A', 'workload.env.B\u0000'].sort());
    const paired = await createRun({ workload: { image: 'busybox', args: ['🙂', 'ÄÖÜ'] }, provider: 'auto', region: 'auto' });
    expect(paired.status).toBe(201);
  });

  it('a deeply nested secret on /provider-credentials is a 400 (it was a 500)', async () => {
    const text = `{"provider":"simulator","secret":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const res = await client.call('POST /provider-credentials', '/provider-credentials', { token, body: text });
    expect([res.status, (res.body as Problem).code]).toEqual([400, 'body_too_complex']);
    const shallow = await client.call('POST /provider-credentials', '/provider-credentials', {
      token,
      body: { provider: 'simulator', secret: { constructor: { prototype: 1 } } },
    });
    expect([shallow.status, (shallow.body as Problem).code]).toEqual([400, 'validation_failed']);
  });

  it(
    'fuzz: 5,000 generated bodies, 0 5xx, every env key kept or refused by name',
    async () => {
      const keyArb = fc.oneof(
        { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 3 },
        { arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/), weight: 6 },
        { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 1 },
        { arbitrary: fc.constantFrom('\u0000', 'A\u0000B', 'ÄÖÜ', '🙂', 'a-b', ''), weight: 1 },
      );
      // Valid env names only, prototype-named ones among them: bodies that must be created as sent.
      const validKeyArb = fc.oneof(
        fc.constantFrom(...PROTOTYPE_NAMES.filter((n) => ENV_NAME.test(n) && n !== '__proto__')),
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
      );
      const junkArb = fc.letrec((tie) => ({
        value: fc.oneof(
          { depthSize: 'small' },
          fc.string({ unit: 'binary', maxLength: 6 }),
          fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '0.0000000000000000000001', 'null', 'true'),
          fc.array(tie('value'), { maxLength: 3 }),
          fc.dictionary(keyArb, tie('value'), { maxKeys: 3 }),
        ),
      })).value;
      const bodyArb = fc.record({
        env: fc.oneof(
          fc.dictionary(validKeyArb, fc.string({ unit: 'binary', maxLength: 12 }), { maxKeys: 8 }),
          fc.dictionary(
            keyArb,
            fc.oneof({ arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 4 }, { arbitrary: junkArb, weight: 1 }),
            { maxKeys: 8 },
          ),
        ),
        // Members no DTO declares (a declared name here would replace the real member: JSON's last one wins).
        extraTop: fc.oneof(
          { arbitrary: fc.constant({}), weight: 4 },
          {
            arbitrary: fc.dictionary(
              keyArb.filter((k) => !TOP.includes(k)),
              junkArb,
              { maxKeys: 2 },
            ),
            weight: 1,
          },
        ),
        extraWorkload: fc.oneof(
          { arbitrary: fc.constant({}), weight: 4 },
          {
            arbitrary: fc.dictionary(
              keyArb.filter((k) => !WORKLOAD.includes(k)),
              junkArb,
              { maxKeys: 2 },
            ),
            weight: 1,
          },
        ),
        timeout: fc.oneof(
          { arbitrary: fc.constant('60'), weight: 6 },
          { arbitrary: fc.constantFrom('1e400', '99999999999999999999999', '-0', '3.5', '"60"'), weight: 1 },
        ),
        depth: fc.oneof({ arbitrary: fc.nat({ max: 29 }), weight: 6 }, { arbitrary: fc.integer({ min: 30, max: 45 }), weight: 1 }),
      });
      let statuses: Record<number, number> = {};
      await fc.assert(
        fc.asyncProperty(bodyArb, async (b) => {
          const nested = `${'['.repeat(b.depth)}"a"${']'.repeat(b.depth)}`;
          const text =
            `{"provider":"auto","region":"auto"${members(b.extraTop)},"workload":{"image":"busybox","env":${rawJson(b.env)},` +
            `"timeoutSeconds":${b.timeout},"args":[${JSON.stringify(nested)}]${members(b.extraWorkload)}}}`;
          const res = await createRun(text);
          statuses = { ...statuses, [res.status]: (statuses[res.status] ?? 0) + 1 };
          expect(res.status).toBeLessThan(500);
          const problem = res.body as Problem;
          const sentEnv = JSON.parse(`{"e":${rawJson(b.env)}}`).e as Record<string, unknown>;
          const undeclared = [...Object.keys(b.extraTop), ...Object.keys(b.extraWorkload).map((k) => `workload.${k}`)];
          if (res.status === 201) {
            expect((res.body as { workload: { env?: Record<string, string> } }).workload.env ?? {}).toEqual(sentEnv);
            expect(undeclared).toEqual([]);
          } else {
            expect(res.status).toBe(400);
            const named = JSON.stringify(problem);
            // Two passes: members the DTO does not declare (and env's __proto__) are refused first, each
            // by its field; a body without them has every refused env key named in the env rule's message.
            const fields = problem.params?.errors?.map((e) => e.field) ?? [];
            const firstPass = [...undeclared, ...(Object.keys(sentEnv).includes('__proto__') ? ['workload.env.__proto__'] : [])];
            if (problem.code === 'validation_failed' && firstPass.length > 0) {
              expect(fields).toEqual(expect.arrayContaining(firstPass));
            }
            const refusedEnv = Object.entries(sentEnv).filter(([k, v]) => !(ENV_NAME.test(k) && k.length <= 128 && typeof v === 'string'));
            if (problem.code === 'validation_failed' && firstPass.length === 0 && fields.includes('workload.env')) {
              for (const [k] of refusedEnv) {
                expect(named).toContain(JSON.stringify(JSON.stringify(k)).slice(1, -1));
              }
            }
          }
        }),
        { numRuns: 5000, endOnFailure: true },
      );
      // The fuzz reached both sides: runs created with their env as sent, and refusals.
      expect(statuses[201]).toBeGreaterThan(100);
      expect(statuses[400]).toBeGreaterThan(100);
    },
    30 * 60_000,
  );
});

/** A dictionary as JSON text, with raw values ('1e400' stays a number literal) and keys escaped. */
function rawJson(dict: Record<string, unknown>): string {
  return `{${Object.entries(dict)
    .map(([k, v]) => `${JSON.stringify(k)}:${rawValue(v)}`)
    .join(',')}}`;
}

function rawValue(v: unknown): string {
  if (typeof v === 'string' && /^(-?1e400|\d{20,}|0\.0+1|null|true)$/.test(v)) {
    return v;
  }
  if (Array.isArray(v)) {
    return `[${v.map(rawValue).join(',')}]`;
  }
  if (typeof v === 'object' && v !== null) {
    return rawJson(v as Record<string, unknown>);
  }
  return JSON.stringify(v);
}

/** Extra members to splice into an object's text: `,"k":v,...` (empty for none). */
function members(dict: Record<string, unknown>): string {
  const text = rawJson(dict).slice(1, -1);
  return text ? `,${text}` : '';
}
