import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

interface Schema {
  required: string[];
  properties: Record<string, unknown>;
}
type Schemas = Record<string, Schema & { allOf?: Schema[] }>;

/** What the servers build from the contract's types: the Run mapper (api and relay), the stored event (the relay's SSE data), the rest of the answers. */
const RUN_MAPPER = 'libs/edge/src/run-resource.ts';
const EVENT_CODEC = 'libs/messaging/src/run-event-codec.ts';
const RESET = 'apps/stream-relay/src/feed/event-resets.ts';
const WEBHOOKS = 'apps/api/src/webhooks/webhook-resources.ts';
const CREDENTIALS = 'apps/api/src/provider-credentials/provider-credential-resource.ts';
const WORKSPACE = 'apps/api/src/workspaces/workspace-resource.ts';
const SESSION = 'apps/api/src/sessions/session-resource.ts';
const VERSION = 'apps/api/src/meta/version-resource.ts';
const PROBLEM = 'libs/problem/src/problem-body.ts';
/** Reached through the mappers: the domain's list of event kinds is the generated one (@wrs/contracts/kinds). */
const DOMAIN_EVENTS = 'libs/domain/src/run/run.events.ts';
/** Every file that builds an answer body of the api or the relay (the controllers only call these). */
const MAPPERS = [RUN_MAPPER, EVENT_CODEC, RESET, WEBHOOKS, CREDENTIALS, WORKSPACE, SESSION, VERSION, PROBLEM];

/** Every changed contract below, type checked before the first test. */
const results = typeChecks({
  asItIs: () => undefined,
  renamed: (schemas) => {
    const run = schemas['Run'] as Schema;
    const { logLines, ...rest } = run.properties;
    run.properties = { ...rest, logLineCount: logLines };
    run.required = run.required.map((name) => (name === 'logLines' ? 'logLineCount' : name));
  },
  retyped: (schemas) => {
    (schemas['Run'] as Schema).properties['exitCode'] = { type: 'string', nullable: true };
  },
  eventChanged: (schemas) => {
    const own = schemas['RunLogEvent']?.allOf?.[1] as Schema;
    (own.properties['data'] as Schema).properties['line'] = { type: 'integer' };
  },
  kindAdded: (schemas) => {
    const kinds = schemas['RunEventType'] as unknown as { enum: string[] };
    kinds.enum = [...kinds.enum, 'run.retried'];
  },
  dropped: (schemas) => {
    drop(ownData(schemas, 'RunCreatedEvent'), 'idempotencyKey');
    drop(schemas['Run'], 'idempotencyKey');
    drop(schemas['Cancellation'], 'requestedAt');
    drop(schemas['RunList'], 'nextCursor');
    drop(schemas['Webhook'], 'events');
    drop(schemas['WebhookWithSecret'], 'url');
    drop(schemas['WebhookDelivery'], 'error');
    drop(schemas['Limits'], 'maxArgs');
    drop(schemas['Workspace'], 'name');
    drop(schemas['PlacementOffer'], 'kind');
    drop(schemas['ProviderCredential'], 'lastFour');
    drop(schemas['Session'], 'csrfToken');
    drop(schemas['Version']?.properties['build'] as Schema, 'commit');
    drop(schemas['RunReset']?.properties['data'] as Schema, 'firstAvailableId');
    drop(schemas['Problem'], 'instance');
  },
});

/**
 * The servers' answers are typed by the contract: regenerate the types from a contract they no longer
 * satisfy, point `@wrs/contracts/types` at them, and the type check of the code that builds them fails.
 */
describe('a changed contract that the server no longer satisfies fails the type check', () => {
  it('passes with the contract as it is', () => {
    expect(results.asItIs).toEqual({ ok: true, output: '' });
  });

  it('fails naming a required property of Run the contract renamed', () => {
    const result = results.renamed;
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${RUN_MAPPER}(${lineOf(RUN_MAPPER, 'logLines:')},`);
    expect(result.output).toContain("'logLines' does not exist");
  });

  it('fails at the Run property whose type the contract changed', () => {
    const result = results.retyped;
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${RUN_MAPPER}(${lineOf(RUN_MAPPER, 'exitCode:')},`);
    expect(result.output).toContain("Type 'number' is not assignable to type 'string'");
  });

  it("fails when a stored event no longer is the contract's RunEvent", () => {
    const result = results.eventChanged;
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${EVENT_CODEC}(${lineOf(EVENT_CODEC, 'const asSent')},`);
    expect(result.output).toContain("The types of 'data.line' are incompatible");
  });

  it('fails when the contract lists a run event kind the domain has no event for', () => {
    const result = results.kindAdded;
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${DOMAIN_EVENTS}(${lineOf(DOMAIN_EVENTS, 'RUN_EVENT_TYPES:')},`);
    expect(result.output).toContain('"run.retried"');
  });
});

/**
 * The schemas refuse additional properties, so a property the contract drops must fail wherever the
 * server still sends it: in a literal (an excess property) and in a value built elsewhere (`Exact`).
 * One contract drops them all; each fails on its own line.
 */
describe('a property the contract drops fails the type check on the line that still sends it', () => {
  it.each([
    { what: "run.created's idempotencyKey (the stored event)", file: EVENT_CODEC, text: 'const asSent', property: 'idempotencyKey' },
    { what: "Run's idempotencyKey", file: RUN_MAPPER, text: 'idempotencyKey:', property: 'idempotencyKey' },
    { what: "Cancellation's requestedAt (a domain value in the Run)", file: RUN_MAPPER, text: 'cancellation:', property: 'requestedAt' },
    { what: "RunList's nextCursor", file: RUN_MAPPER, text: '{ items: runs.map', property: 'nextCursor' },
    { what: "RunReset's firstAvailableId", file: RESET, text: 'firstAvailableId, run:', property: 'firstAvailableId' },
    { what: "Webhook's events", file: WEBHOOKS, text: 'events: webhook.events', property: 'events' },
    {
      what: "WebhookWithSecret's url (a spread, checked by Exact)",
      file: WEBHOOKS,
      text: 'satisfies Exact<WebhookWithSecret',
      property: 'url',
    },
    { what: "WebhookDelivery's error", file: WEBHOOKS, text: 'error: delivery.error', property: 'error' },
    { what: "Limits' maxArgs", file: WORKSPACE, text: 'maxArgs:', property: 'maxArgs' },
    { what: "Workspace's name", file: WORKSPACE, text: 'name: workspace.name', property: 'name' },
    { what: "PlacementOffer's kind", file: WORKSPACE, text: 'kind: kindOf', property: 'kind' },
    { what: "ProviderCredential's lastFour", file: CREDENTIALS, text: 'lastFour:', property: 'lastFour' },
    { what: "Session's csrfToken", file: SESSION, text: 'csrfToken: session.csrfToken', property: 'csrfToken' },
    { what: "Version's build.commit", file: VERSION, text: 'commit: build.commit', property: 'commit' },
    { what: "Problem's instance (an optional member)", file: PROBLEM, text: '{ instance: extra.instance }', property: 'instance' },
  ])('$what', ({ file, text, property }) => {
    const result = results.dropped;
    expect(result.ok).toBe(false);
    const errors = result.output.split(/\n(?=\S)/).filter((error) => error.startsWith(`${file}(${lineOf(file, text)},`));
    expect(errors.join('\n')).toMatch(new RegExp(`['.]${property}'`)); // 'name', or a path: 'data.idempotencyKey'
  });
});

/** Removes a property from an object schema, and from its required ones. */
function drop(schema: Schema | undefined, property: string): void {
  if (!schema?.properties[property]) {
    throw new Error(`no property ${property} to drop`);
  }
  delete schema.properties[property];
  schema.required = schema.required.filter((name) => name !== property);
}

/** The `data` schema of an event's own part (its `allOf` after the envelope). */
function ownData(schemas: Schemas, event: string): Schema {
  return (schemas[event]?.allOf?.[1] as Schema).properties['data'] as Schema;
}

/** The line of `file` where `text` first is (1-based), as tsc reports it. */
function lineOf(file: string, text: string): number {
  const line = readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(text));
  if (line < 0) {
    throw new Error(`${file} has no line with ${text}`);
  }
  return line + 1;
}

interface TypeCheck {
  readonly ok: boolean;
  readonly output: string;
}

/**
 * Type checks each changed contract in a beforeAll, two at a time: each is a tsc run of several seconds
 * on one core, and one after another they took about a minute. Read the results in the tests.
 */
function typeChecks<K extends string>(changes: Record<K, (schemas: Schemas) => void>): Record<K, TypeCheck> {
  const results = {} as Record<K, TypeCheck>;
  const dirs: string[] = [];
  beforeAll(async () => {
    const queue = Object.entries(changes) as Array<[K, (schemas: Schemas) => void]>;
    const next = async (): Promise<void> => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) {
        const dir = mkdtempSync(join(tmpdir(), 'wrs-contract-'));
        dirs.push(dir);
        results[entry[0]] = await typeCheck(dir, entry[1]).catch((error: unknown) => {
          queue.length = 0; // the other runner takes no more: nothing starts after the hook has failed
          throw error;
        });
      }
    };
    await Promise.all([next(), next()]);
  }, 600_000);
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return results;
}

/** Generates the types from the contract as `change` leaves it, then runs tsc over the answer mappers alone. */
async function typeCheck(dir: string, change: (schemas: Schemas) => void): Promise<TypeCheck> {
  const contract = parse(readFileSync(join(ROOT, 'libs/contracts/openapi.yaml'), 'utf8')) as { components: { schemas: Schemas } };
  change(contract.components.schemas);
  writeFileSync(join(dir, 'openapi.yaml'), stringify(contract));
  const generate = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts/client-generate.mjs'), join(dir, 'generated'), join(dir, 'openapi.yaml')],
    {
      encoding: 'utf8',
    },
  );
  if (generate.status !== 0) {
    throw new Error(`scripts/client-generate.mjs failed (${generate.status ?? generate.signal}): ${generate.stderr}`);
  }
  copyFileSync(join(ROOT, 'libs/contracts/src/types.ts'), join(dir, 'types.ts'));

  const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  const tsconfig = {
    extends: join(ROOT, 'tsconfig.base.json'),
    compilerOptions: {
      noEmit: true,
      baseUrl: ROOT,
      typeRoots: [join(ROOT, 'node_modules/@types')],
      types: ['node'],
      paths: {
        ...base.compilerOptions.paths,
        '@wrs/contracts/types': [join(dir, 'types.ts')],
        '@wrs/contracts/kinds': [join(dir, 'generated/run-event-kinds.ts')],
      },
    },
    files: MAPPERS.map((file) => join(ROOT, file)),
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = await new Promise<{ status: number | null; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
      // Killed at the time-out, tsc's check is not ok and names no line: every test fails, none hangs.
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, output: stdout + stderr }),
    );
  });
  return { ok: tsc.status === 0, output: tsc.output };
}
