import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as config from '@wrs/config';
import * as devstack from './index';

const DOC = join(__dirname, '..', '..', '..', 'docs', 'configuration.md');

/** As apps/e2e/src/stack-config.e2e.spec.ts reads it: every backticked name in the first column of the doc's tables. */
function documentedVariables(): string[] {
  const rows = readFileSync(DOC, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return [...new Set(rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)))];
}

/** Every environment schema class the config and devstack libraries export (`...Env`), found, not listed. */
function envSchemas(): Array<[string, new () => object]> {
  const exported: Array<[string, unknown]> = [...Object.entries(config), ...Object.entries(devstack)];
  return exported.flatMap(([name, value]): Array<[string, new () => object]> => {
    if (typeof value !== 'function' || !/Env$/.test(name)) {
      return [];
    }
    const schema = value as new () => object;
    return config.variablesOf(schema).length > 0 ? [[name, schema]] : [];
  });
}

describe('docs/configuration.md', () => {
  it('finds the schemas: api, relay, worker, gateway, token, npm start and the common ones (migrate, ops)', () => {
    const names = envSchemas().map(([name]) => name);
    expect(names).toEqual(
      expect.arrayContaining(['ApiEnv', 'RelayEnv', 'WorkerEnv', 'GatewayEnv', 'TokenEnv', 'StackEnv', 'CommonEnv', 'OperationsEnv']),
    );
    for (const schema of Object.values(config.SERVICE_SCHEMAS)) {
      expect(envSchemas().map(([, s]) => s)).toContain(schema);
    }
  });

  it('has a row for every variable an environment schema declares', () => {
    const documented = new Set(documentedVariables());
    const missing = envSchemas().flatMap(([name, schema]) =>
      config
        .variablesOf(schema)
        .filter((v) => !documented.has(v))
        .map((v) => `${v} (${name})`),
    );
    expect([...new Set(missing)]).toEqual([]);
  });
});
