import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO_ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * What one ESLint rule of the repository's own configuration says about `code` as if it were the file
 * at `filePath`. Run in a child process: the configuration is ESM, which Jest's CommonJS runtime cannot
 * import. Typed linting is off (the probe file is in no tsconfig), and only `ruleId` runs.
 */
export function lintMessages(code: string, filePath: string, ruleId: string): string[] {
  ensureProjectGraph();
  const script = `
    import { ESLint } from 'eslint';
    const [code, filePath, ruleId] = process.argv.slice(1);
    const eslint = new ESLint({
      cwd: process.cwd(),
      ruleFilter: (rule) => rule.ruleId === ruleId,
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
    const [result] = await eslint.lintText(code, { filePath });
    process.stdout.write(JSON.stringify(result.messages.map((m) => m.ruleId + ': ' + m.message)));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, code, filePath, ruleId], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return JSON.parse(out) as string[];
}

let projectGraphReady = false;

/** Nx's boundary rule reads the cached project graph and skips itself without one (a fresh checkout): make it once. */
function ensureProjectGraph(): void {
  if (!projectGraphReady) {
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'nx'), ['show', 'projects'], { cwd: REPO_ROOT, stdio: 'ignore' });
    projectGraphReady = true;
  }
}
