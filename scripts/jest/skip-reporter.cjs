// A Jest reporter for every tier: after the run it prints how many tests passed, failed and were
// skipped, and why each skipped test was skipped (the reason sits in its title, put there by
// describeNeeding/itNeeding in libs/testing). In CI (CI=true) any skipped test fails the run: a
// CI run must not go green without the tests it was meant to run.
const SKIP_MARK = '[skipped: ';

class SkipReporter {
  constructor(globalConfig, options = {}) {
    this.tier = options.tier ?? 'tests';
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo' || test.status === 'disabled') {
          skipped.push({
            file: file.testFilePath.replace(`${process.cwd()}/`, ''),
            title: [...test.ancestorTitles, test.title].join(' > '),
          });
        }
      }
    }
    const line = `[${this.tier}] ${results.numTotalTests} tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped.length} skipped`;
    process.stdout.write(`\n${line}\n`);
    const reasons = new Map();
    for (const { file, title } of skipped) {
      const at = title.indexOf(SKIP_MARK);
      const why = at >= 0 ? title.slice(at + SKIP_MARK.length, title.indexOf(']', at)) : 'skipped in the code without a reason';
      reasons.set(why, [...(reasons.get(why) ?? []), file]);
    }
    for (const [why, files] of reasons) {
      process.stdout.write(`  ${files.length} skipped: ${why} (${[...new Set(files)].join(', ')})\n`);
    }
    const ci = process.env.CI === 'true' || process.env.CI === '1';
    this.error =
      ci && skipped.length > 0 ? new Error(`[${this.tier}] ${skipped.length} test(s) skipped in CI: every test must run`) : undefined;
    if (this.error) {
      process.stdout.write(`${this.error.message}\n`);
    }
  }

  getLastError() {
    return this.error;
  }
}

module.exports = SkipReporter;
