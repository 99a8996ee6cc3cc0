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

/**
 * The server's answers are typed by the contract: regenerate the types from a contract whose `Run` the
 * mapper no longer satisfies, point `@wrs/contracts/types` at them, and the type check of the mapper fails.
 */
describe('a changed contract that the server no longer satisfies fails the type check', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wrs-contract-break-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes with the contract as it is', () => {
    expect(typeCheckMapper(dir, (run) => run)).toEqual({ ok: true, output: '' });
  });

  it('fails naming a required property the contract renamed', () => {
    const result = typeCheckMapper(dir, (run) => {
      const { logLines, ...rest } = run.properties;
      return { properties: { ...rest, logLineCount: logLines }, required: run.required.map((name) => (name === 'logLines' ? 'logLineCount' : name)) };
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`run-resource.ts(${lineOf('logLines:')},`);
    expect(result.output).toContain("'logLines' does not exist");
  });

  it('fails at the property whose type the contract changed', () => {
    const result = typeCheckMapper(dir, (run) => ({ ...run, properties: { ...run.properties, exitCode: { type: 'string', nullable: true } } }));
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`run-resource.ts(${lineOf('exitCode:')},`);
    expect(result.output).toContain("Type 'number' is not assignable to type 'string'");
  });
});

/** The line of the Run mapper where `text` is (1-based), as tsc reports it. */
function lineOf(text: string): number {
  return readFileSync(join(ROOT, 'libs/edge/src/run-resource.ts'), 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;
}

/** Generates the types from the contract with `Run` changed by `change`, then runs tsc over the Run mapper alone. */
function typeCheckMapper(dir: string, change: (run: Schema) => Schema): { ok: boolean; output: string } {
  const contract = parse(readFileSync(join(ROOT, 'libs/contracts/openapi.yaml'), 'utf8')) as { components: { schemas: Record<string, Schema> } };
  contract.components.schemas['Run'] = change(contract.components.schemas['Run'] as Schema);
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
      types: [],
      paths: { ...base.compilerOptions.paths, '@wrs/contracts/types': [join(dir, 'types.ts')] },
    },
    files: [join(ROOT, 'libs/edge/src/run-resource.ts')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  return { ok: tsc.status === 0, output: tsc.stdout + tsc.stderr };
}
