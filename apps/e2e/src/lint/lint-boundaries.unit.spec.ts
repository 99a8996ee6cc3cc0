import { lintAll, type LintProbe } from './lint-text.testing';

/**
 * A test's probes and what each rule must say of them (refuse: one message; allow: none), linted
 * together in one child process when `check` is called.
 */
class Probes {
  private readonly cases: { readonly probe: LintProbe; readonly refused: boolean }[] = [];

  /** A probe of one rule: `refuses(code, file)` expects one message, `allows(code, file)` none. */
  rule(ruleId: string): { refuses: (code: string, filePath: string) => void; allows: (code: string, filePath: string) => void } {
    const add = (refused: boolean) => (code: string, filePath: string) =>
      void this.cases.push({ probe: { code, filePath, ruleId }, refused });
    return { refuses: add(true), allows: add(false) };
  }

  check(): void {
    const answers = lintAll(this.cases.map((c) => c.probe));
    this.cases.forEach(({ probe, refused }, i) => {
      expect({ ...probe, messages: answers[i] }).toEqual({ ...probe, messages: refused ? [expect.any(String)] : [] });
    });
  }
}

/** The boundaries the README describes, shown to hold: each rule is fed an import it must refuse. */
describe('lint enforces the module boundaries', () => {
  it('a probe that would prove nothing fails: one that does not parse, names no configured rule, or is an ignored file', () => {
    const probe = { code: "import { x } from 'pg';\n", filePath: 'libs/domain/src/probe.ts', ruleId: 'no-restricted-imports' };
    expect(() => lintAll([probe, { ...probe, code: 'import {' }])).toThrow(
      /no-restricted-imports on libs\/domain\/src\/probe.ts: Parsing error/,
    );
    expect(() => lintAll([{ ...probe, ruleId: 'no-restricted-importz' }])).toThrow(/no such rule is configured/);
    expect(() => lintAll([{ ...probe, filePath: 'dist/libs/domain/src/probe.ts' }])).toThrow(/ignores this file/);
  });

  it('libs/domain imports no Node built-in and no I/O package', () => {
    const probes = new Probes();
    const restricted = probes.rule('no-restricted-imports');
    restricted.refuses("import { randomUUID } from 'node:crypto';\n", 'libs/domain/src/run/probe.ts');
    restricted.refuses("import { readFileSync } from 'fs';\n", 'libs/domain/src/probe.ts');
    restricted.refuses("import { Pool } from 'pg';\n", 'libs/domain/src/probe.ts');
    restricted.allows("import { fold } from './run/run.state';\n", 'libs/domain/src/probe.ts');
    // Elsewhere the same import is allowed.
    restricted.allows("import { randomUUID } from 'node:crypto';\n", 'libs/messaging/src/probe.ts');
    // Nor loaded at run time, which no-restricted-imports does not see.
    const syntax = probes.rule('no-restricted-syntax');
    syntax.refuses("export const fs = () => import('node:fs');\n", 'libs/domain/src/probe.ts');
    syntax.refuses("export const fs = () => require('node:fs') as unknown;\n", 'libs/domain/src/probe.ts');
    probes.check();
  });

  it('deployable apps do not import the test helpers outside their tests', () => {
    const probes = new Probes();
    const restricted = probes.rule('no-restricted-imports');
    const importTesting = "import { eventually } from '@wrs/testing';\n";
    for (const app of ['api', 'run-worker', 'stream-relay', 'gateway']) {
      restricted.refuses(importTesting, `apps/${app}/src/probe.ts`);
      restricted.allows(importTesting, `apps/${app}/src/probe.int.spec.ts`);
      restricted.allows(importTesting, `apps/${app}/src/probe.testing.ts`);
    }
    // Nor by a dynamic import, nor through a lib they ship with; a lib's tests may.
    const boundaries = probes.rule('@nx/enforce-module-boundaries');
    boundaries.refuses("export const helpers = () => import('@wrs/testing');\n", 'apps/api/src/probe.ts');
    boundaries.refuses(importTesting, 'libs/edge/src/probe.ts');
    boundaries.allows(importTesting, 'libs/edge/src/probe.int.spec.ts');
    boundaries.allows(importTesting, 'apps/api/src/probe.testing.ts');
    probes.check();
  });

  it("one app's libs are not imported by another app or by a shared lib", () => {
    const probes = new Probes();
    const boundaries = probes.rule('@nx/enforce-module-boundaries');
    const importProjection = "import { RunProjection } from '@wrs/projection';\n";
    boundaries.refuses(importProjection, 'apps/stream-relay/src/probe.ts');
    boundaries.refuses(importProjection, 'apps/api/src/probe.ts');
    boundaries.refuses(importProjection, 'apps/gateway/src/probe.ts');
    boundaries.refuses(importProjection, 'libs/messaging/src/probe.ts');
    boundaries.allows(importProjection, 'apps/run-worker/src/probe.ts');
    // Tests may seed the runs table with the projection, its only writer.
    boundaries.allows(importProjection, 'apps/api/src/probe.int.spec.ts');
    // Shared libs stay open to every app.
    boundaries.allows("import { RunQueries } from '@wrs/persistence';\n", 'apps/stream-relay/src/probe.ts');
    probes.check();
  });

  it('the client and the console import only the contract types, and only as types', () => {
    const probes = new Probes();
    const restricted = probes.rule('@typescript-eslint/no-restricted-imports');
    const boundaries = probes.rule('@nx/enforce-module-boundaries');
    const contractTypes = "import type { RunResource } from '@wrs/contracts/types';\n";
    const domainTypes = "import type { RunView } from '@wrs/domain';\n";
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      restricted.allows(contractTypes, file);
      boundaries.allows(contractTypes, file);
      // A value import would put Node-only code into the published package or the browser bundle.
      restricted.refuses("import { RunResource } from '@wrs/contracts/types';\n", file);
      restricted.refuses(domainTypes, file);
      boundaries.refuses(domainTypes, file);
    }
    restricted.refuses("import { CONTRACT_VERSION } from '@wrs/contracts';\n", 'libs/client/src/probe.ts');
    // Nor at run time: the contract lib reads files and is no part of the package or the bundle.
    const syntax = probes.rule('no-restricted-syntax');
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      syntax.refuses("export const contract = () => import('@wrs/contracts');\n", file);
    }
    // Elsewhere the contract types are a lib like any other: the pure domain does not import them.
    boundaries.refuses(contractTypes, 'libs/domain/src/probe.ts');
    probes.check();
  });

  it('the run event kinds generated from the contract are open to the client, the console and the domain, and nothing else of it', () => {
    const probes = new Probes();
    const restricted = probes.rule('@typescript-eslint/no-restricted-imports');
    const boundaries = probes.rule('@nx/enforce-module-boundaries');
    const kinds = "import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds';\n";
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts', 'libs/domain/src/probe.ts']) {
      restricted.allows(kinds, file);
      boundaries.allows(kinds, file);
    }
    for (const file of ['libs/client/src/probe.ts', 'apps/console/src/probe.ts']) {
      restricted.refuses("import { contractDocument } from '@wrs/contracts';\n", file);
      restricted.refuses("import { RUN_EVENT_KINDS } from '@wrs/contracts/kinds-and-more';\n", file);
      restricted.refuses("import { RunResource } from '@wrs/contracts/types';\n", file);
    }
    // The domain takes the kinds only: the rest of the contract lib stays out of it.
    boundaries.refuses("import { CONTRACT_VERSION } from '@wrs/contracts';\n", 'libs/domain/src/probe.ts');
    probes.check();
  });
});
