import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PINNED_CONTRACT_VERSION } from './generated/contract-version';

const ROOT = join(__dirname, '..', '..', '..');
const GENERATED = join(__dirname, 'generated');
const FIX = 'The client is out of date with libs/contracts/openapi.yaml: run `npm run client:generate` and commit libs/client/src/generated/.';

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
      for (const file of ['contract.ts', 'contract-version.ts']) {
        if (readFileSync(join(fresh, file), 'utf8') !== readFileSync(join(GENERATED, file), 'utf8')) {
          throw new Error(`libs/client/src/generated/${file} differs from a fresh generation. ${FIX}`);
        }
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
