import { spawnSync } from 'node:child_process';
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

/** What the servers build from the contract's types: the Run mapper (api and relay) and the stored event (the relay's SSE data). */
const RUN_MAPPER = 'libs/edge/src/run-resource.ts';
const EVENT_CODEC = 'libs/messaging/src/run-event-codec.ts';

/**
 * The servers' answers are typed by the contract: regenerate the types from a contract they no longer
 * satisfy, point `@wrs/contracts/types` at them, and the type check of the code that builds them fails.
 */
describe('a changed contract that the server no longer satisfies fails the type check', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrs-contract-break-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes with the contract as it is', () => {
    expect(typeCheck(dir, () => undefined)).toEqual({ ok: true, output: '' });
  });

  it('fails naming a required property of Run the contract renamed', () => {
    const result = typeCheck(dir, (schemas) => {
      const run = schemas['Run'] as Schema;
      const { logLines, ...rest } = run.properties;
      run.properties = { ...rest, logLineCount: logLines };
      run.required = run.required.map((name) => (name === 'logLines' ? 'logLineCount' : name));
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${RUN_MAPPER}(${lineOf(RUN_MAPPER, 'logLines:')},`);
    expect(result.output).toContain("'logLines' does not exist");
  });

  it('fails at the Run property whose type the contract changed', () => {
    const result = typeCheck(dir, (schemas) => {
      (schemas['Run'] as Schema).properties['exitCode'] = { type: 'string', nullable: true };
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${RUN_MAPPER}(${lineOf(RUN_MAPPER, 'exitCode:')},`);
    expect(result.output).toContain("Type 'number' is not assignable to type 'string'");
  });

  it("fails when a stored event no longer is the contract's RunEvent", () => {
    const result = typeCheck(dir, (schemas) => {
      const own = schemas['RunLogEvent']?.allOf?.[1] as Schema;
      ((own.properties['data'] as Schema).properties)['line'] = { type: 'integer' };
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`${EVENT_CODEC}(${lineOf(EVENT_CODEC, 'const asSent')},`);
    expect(result.output).toContain("The types of 'data.line' are incompatible");
  });
});

/** The line of `file` where `text` is (1-based), as tsc reports it. */
function lineOf(file: string, text: string): number {
  return readFileSync(join(ROOT, file), 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;
}

/** Generates the types from the contract as `change` leaves it, then runs tsc over the Run mapper and the event codec alone. */
function typeCheck(dir: string, change: (schemas: Schemas) => void): { ok: boolean; output: string } {
  const contract = parse(readFileSync(join(ROOT, 'libs/contracts/openapi.yaml'), 'utf8')) as { components: { schemas: Schemas } };
  change(contract.components.schemas);
  writeFileSync(join(dir, 'openapi.yaml'), stringify(contract));
  const generate = spawnSync(process.execPath, [join(ROOT, 'scripts/client-generate.mjs'), join(dir, 'generated'), join(dir, 'openapi.yaml')], {
    encoding: 'utf8',
  });
  expect(generate.status).toBe(0);
  copyFileSync(join(ROOT, 'libs/contracts/src/types.ts'), join(dir, 'types.ts'));

  const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  const tsconfig = {
    extends: join(ROOT, 'tsconfig.base.json'),
    compilerOptions: {
      noEmit: true,
      baseUrl: ROOT,
      typeRoots: [join(ROOT, 'node_modules/@types')],
      types: ['node'],
      paths: { ...base.compilerOptions.paths, '@wrs/contracts/types': [join(dir, 'types.ts')] },
    },
    files: [join(ROOT, RUN_MAPPER), join(ROOT, EVENT_CODEC)],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', cwd: ROOT });
  return { ok: tsc.status === 0, output: tsc.stdout + tsc.stderr };
}
