import { lintMessages } from './lint-text.testing';

/** The boundaries the README describes, shown to hold: each rule is fed an import it must refuse. */
describe('lint enforces the module boundaries', () => {
  const restricted = (code: string, filePath: string): string[] => lintMessages(code, filePath, 'no-restricted-imports');

  it('libs/domain imports no Node built-in and no I/O package', () => {
    expect(restricted("import { randomUUID } from 'node:crypto';\n", 'libs/domain/src/run/probe.ts')).toHaveLength(1);
    expect(restricted("import { readFileSync } from 'fs';\n", 'libs/domain/src/probe.ts')).toHaveLength(1);
    expect(restricted("import { Pool } from 'pg';\n", 'libs/domain/src/probe.ts')).toHaveLength(1);
    expect(restricted("import { fold } from './run/run.state';\n", 'libs/domain/src/probe.ts')).toEqual([]);
    // Elsewhere the same import is allowed.
    expect(restricted("import { randomUUID } from 'node:crypto';\n", 'libs/messaging/src/probe.ts')).toEqual([]);
    // Nor loaded at run time, which no-restricted-imports does not see.
    const syntax = (code: string, filePath: string): string[] => lintMessages(code, filePath, 'no-restricted-syntax');
    expect(syntax("export const fs = () => import('node:fs');\n", 'libs/domain/src/probe.ts')).toHaveLength(1);
    expect(syntax("export const fs = () => require('node:fs') as unknown;\n", 'libs/domain/src/probe.ts')).toHaveLength(1);
  });

  it('deployable apps do not import the test helpers outside their tests', () => {
    const importTesting = "import { eventually } from '@wrs/testing';\n";
    for (const app of ['api', 'run-worker', 'stream-relay', 'gateway']) {
      expect(restricted(importTesting, `apps/${app}/src/probe.ts`)).toHaveLength(1);
      expect(restricted(importTesting, `apps/${app}/src/probe.int.spec.ts`)).toEqual([]);
      expect(restricted(importTesting, `apps/${app}/src/probe.testing.ts`)).toEqual([]);
    }
    // Nor by a dynamic import, nor through a lib they ship with; a lib's tests may.
    const boundaries = (code: string, filePath: string): string[] => lintMessages(code, filePath, '@nx/enforce-module-boundaries');
    expect(boundaries("export const helpers = () => import('@wrs/testing');\n", 'apps/api/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importTesting, 'libs/edge/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importTesting, 'libs/edge/src/probe.int.spec.ts')).toEqual([]);
    expect(boundaries(importTesting, 'apps/api/src/probe.testing.ts')).toEqual([]);
  });

  it("one app's libs are not imported by another app or by a shared lib", () => {
    const boundaries = (code: string, filePath: string): string[] => lintMessages(code, filePath, '@nx/enforce-module-boundaries');
    const importProjection = "import { RunProjection } from '@wrs/projection';\n";
    expect(boundaries(importProjection, 'apps/stream-relay/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importProjection, 'apps/api/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importProjection, 'apps/gateway/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importProjection, 'libs/messaging/src/probe.ts')).toHaveLength(1);
    expect(boundaries(importProjection, 'apps/run-worker/src/probe.ts')).toEqual([]);
    // Tests may seed the runs table with the projection, its only writer.
    expect(boundaries(importProjection, 'apps/api/src/probe.int.spec.ts')).toEqual([]);
    // Shared libs stay open to every app.
    expect(boundaries("import { RunQueries } from '@wrs/persistence';\n", 'apps/stream-relay/src/probe.ts')).toEqual([]);
  });

  it('the client and the console import only the contract types, and only as types', () => {
    const restricted = (code: string, filePath: string): string[] =>
      lintMessages(code, filePath, '@typescript-eslint/no-restricted-imports');
    const boundaries = (code: string, filePath: string): string[] => lintMessages(code, filePath, '@nx/enforce-module-boundaries');
    const contractTypes = "import type { RunResource } from '@wrs/contracts/types';\n";
    const domainTypes = "import type { RunView } from '@wrs/domain';\n";
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      expect(restricted(contractTypes, file)).toEqual([]);
      expect(boundaries(contractTypes, file)).toEqual([]);
      // A value import would put Node-only code into the published package or the browser bundle.
      expect(restricted("import { RunResource } from '@wrs/contracts/types';\n", file)).toHaveLength(1);
      expect(restricted(domainTypes, file)).toHaveLength(1);
      expect(boundaries(domainTypes, file)).toHaveLength(1);
    }
    expect(restricted("import { CONTRACT_VERSION } from '@wrs/contracts';\n", 'libs/client/src/probe.ts')).toHaveLength(1);
    // Nor at run time: the contract lib reads files and is no part of the package or the bundle.
    const syntax = (code: string, filePath: string): string[] => lintMessages(code, filePath, 'no-restricted-syntax');
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      expect(syntax("export const contract = () => import('@wrs/contracts');\n", file)).toHaveLength(1);
    }
    // Elsewhere the contract types are a lib like any other: the pure domain does not import them.
    expect(boundaries(contractTypes, 'libs/domain/src/probe.ts')).toHaveLength(1);
  });

  it('the run event kinds generated from the contract are open to the client, the console and the domain, and nothing else of it', () => {
    const restricted = (code: string, filePath: string): string[] =>
      lintMessages(code, filePath, '@typescript-eslint/no-restricted-imports');
    const boundaries = (code: string, filePath: string): string[] => lintMessages(code, filePath, '@nx/enforce-module-boundaries');
    const kinds = "import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';\n";
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts', 'libs/domain/src/probe.ts']) {
      expect(restricted(kinds, file)).toEqual([]);
      expect(boundaries(kinds, file)).toEqual([]);
    }
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      expect(restricted("import { contractDocument } from '@wrs/contracts';\n", file)).toHaveLength(1);
      expect(restricted("import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds-and-more';\n", file)).toHaveLength(1);
      expect(restricted("import { RunResource } from '@wrs/contracts/types';\n", file)).toHaveLength(1);
    }
    // The domain takes the kinds only: the rest of the contract lib stays out of it.
    expect(boundaries("import { CONTRACT_VERSION } from '@wrs/contracts';\n", 'libs/domain/src/probe.ts')).toHaveLength(1);
  });
});
