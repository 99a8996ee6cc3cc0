import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Runs the unit tier's Jest (with its skip reporter) on one fixture file, as CI or as a developer would. */
function jestOn(fixture: string, ci: boolean): { status: number | null; out: string } {
  const env = { ...process.env, CI: ci ? 'true' : 'false' };
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/jest/bin/jest.js'),
      '-c',
      'jest.unit.config.js',
      '--testMatch',
      `<rootDir>/libs/testing/src/fixtures/${fixture}`,
      '--ci',
    ],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('a missing dependency: a visible skip outside CI, a failure in CI', () => {
  it('outside CI the tests that need it are skipped (not passed), and the summary says why', () => {
    const { status, out } = jestOn('needs.fixture.ts', false);
    expect(status).toBe(0);
    expect(out).toContain('[unit] 4 tests: 2 passed, 0 failed, 2 skipped');
    expect(out).toMatch(/1 skipped: no widget at \/nowhere/);
    expect(out).toMatch(/1 skipped: no gadget/);
  });

  it('in CI the same tests fail and say what is missing', () => {
    const { status, out } = jestOn('needs.fixture.ts', true);
    expect(status).toBe(1);
    expect(out).toContain('[unit] 4 tests: 2 passed, 2 failed, 0 skipped');
    expect(out).toContain('CI=true and a dependency of these tests is missing: no widget at /nowhere');
    expect(out).toContain('CI=true and a dependency of this test is missing: no gadget');
  });

  it('a skip written by hand is counted; in CI it fails the tier although every test that ran passed', () => {
    const local = jestOn('plain-skip.fixture.ts', false);
    expect(local.status).toBe(0);
    expect(local.out).toContain('[unit] 2 tests: 1 passed, 0 failed, 1 skipped');
    expect(local.out).toContain('skipped in the code without a reason');
    const ci = jestOn('plain-skip.fixture.ts', true);
    expect(ci.status).toBe(1);
    expect(ci.out).toContain('1 test(s) skipped in CI: every test must run');
  });
});
