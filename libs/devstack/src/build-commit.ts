import { execFileSync } from 'node:child_process';

/**
 * The BUILD_COMMIT `npm start` gives its services (the `commit` of GET /version): the caller's value
 * when set, else `git rev-parse --short HEAD` of the checkout it runs from; undefined (the variable
 * left unset, `commit: null`) without git or outside a git checkout.
 */
export function stackBuildCommit(checkoutDir: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env['BUILD_COMMIT']) {
    return env['BUILD_COMMIT'];
  }
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: checkoutDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      // The checkout at checkoutDir, not one a GIT_DIR of the caller's points at.
      env: { ...process.env, GIT_DIR: undefined, GIT_WORK_TREE: undefined },
    }).trim();
    return /^[0-9a-f]{4,64}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined; // no git, or not a checkout (e.g. an unpacked build)
  }
}
