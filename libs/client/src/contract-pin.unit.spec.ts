import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PINNED_CONTRACT_VERSION } from './generated/contract-version';

const ROOT = join(__dirname, '..', '..', '..');
/**
 * Where `npm run client:generate` writes each file: the contract's types and run event kinds in
 * libs/contracts, the client's pin here.
 */
const GENERATED: Record<string, string> = {
  'contract.ts': join(ROOT, 'libs/contracts/src/generated/contract.ts'),
  'run-event-kinds.ts': join(ROOT, 'libs/contracts/src/generated/run-event-kinds.ts'),
  'contract-version.ts': join(__dirname, 'generated/contract-version.ts'),
};
const FIX =
  'The generated types are out of date with libs/contracts/openapi.yaml: run `npm run client:generate` and commit libs/contracts/src/generated/ and libs/client/src/generated/.';

/** The CI check (`npm run client:check`): the committed client is generated from the contract as it is now. */
describe('the client is pinned to the server contract', () => {
  it('pins the contract version the server speaks (info.version)', () => {
    const contract = parse(readFileSync(join(ROOT, 'libs/contracts/openapi.yaml'), 'utf8')) as { info: { version: string } };
    if (PINNED_CONTRACT_VERSION !== contract.info.version) {
      throw new Error(`pinned ${PINNED_CONTRACT_VERSION}, contract ${contract.info.version}. ${FIX}`);
    }
  });

  it('has generated types identical to a fresh generation', () => {
    const fresh = mkdtempSync(join(tmpdir(), 'wrs-client-gen-'));
    try {
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/client-generate.mjs'), fresh], { encoding: 'utf8' });
      expect(run.status).toBe(0);
      for (const [file, committed] of Object.entries(GENERATED)) {
        if (readFileSync(join(fresh, file), 'utf8') !== readFileSync(committed, 'utf8')) {
          throw new Error(`${committed} differs from a fresh generation. ${FIX}`);
        }
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
