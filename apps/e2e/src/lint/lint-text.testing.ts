import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..', '..', '..');

/** A text to lint as if it were the file at `filePath`, by one rule of the repository's configuration. */
export interface LintProbe {
  readonly code: string;
  readonly filePath: string;
  readonly ruleId: string;
}

/**
 * What each probe's rule says about its code, in one child process with one ESLint for them all:
 * loading the configuration (Nx's project graph, typescript-eslint) was most of each probe's cost, two
 * seconds a probe on a slow machine. A child process because the configuration is ESM, which Jest's
 * CommonJS runtime cannot import. Typed linting is off (the probe files are in no tsconfig).
 */
export function lintAll(probes: readonly LintProbe[]): string[][] {
  ensureProjectGraph();
  const script = `
    import { ESLint } from 'eslint';
    process.stdin.setEncoding('utf8');
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const probes = JSON.parse(input);
    const rules = new Set(probes.map((p) => p.ruleId));
    const known = new Set();
    const eslint = new ESLint({
      cwd: process.cwd(),
      ruleFilter: (rule) => (known.add(rule.ruleId), rules.has(rule.ruleId)),
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
    const answers = [];
    for (const probe of probes) {
      const where = probe.ruleId + ' on ' + probe.filePath + ': ';
      // A probe that is ignored, does not parse or names no rule of the configuration proves nothing.
      if (await eslint.isPathIgnored(probe.filePath)) throw new Error(where + 'the configuration ignores this file');
      const [result] = await eslint.lintText(probe.code, { filePath: probe.filePath });
      const fatal = result.messages.find((m) => m.fatal);
      if (fatal) throw new Error(where + fatal.message);
      if (!known.has(probe.ruleId)) throw new Error(where + 'no such rule is configured for this file');
      // The other rules enabled for the batch say nothing of this probe.
      answers.push(result.messages.filter((m) => m.ruleId === probe.ruleId).map((m) => m.ruleId + ': ' + m.message));
    }
    process.stdout.write(JSON.stringify(answers));
  `;
  let out: string;
  try {
    out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      input: JSON.stringify(probes),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    // What the child said (its error names the probe), not just that it failed.
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`linting the probes failed: ${stderr.split('\n').find((line) => line.startsWith('Error:')) ?? stderr}`);
  }
  return JSON.parse(out) as string[][];
}

let projectGraphReady = false;

/** Nx's boundary rule reads the cached project graph and skips itself without one (a fresh checkout): make it once. */
function ensureProjectGraph(): void {
  if (!projectGraphReady) {
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'nx'), ['show', 'projects'], { cwd: REPO_ROOT, stdio: 'ignore' });
    projectGraphReady = true;
  }
}
