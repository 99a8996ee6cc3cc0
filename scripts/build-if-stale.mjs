// Builds (scripts/build.mjs) only when a source is newer than the last build, so `npm run token`,
// `npm run cli` and `npm start` start at once when dist/ is current. The build writes dist/.build-stamp
// last; a source changed after the build began is newer than the stamp and rebuilds next time. Build
// output goes to stderr: the tools' stdout (a token on its last line) stays theirs.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'dist', '.build-stamp');
// What the build reads: sources, the contract, the compiler and path settings, the dependencies.
const ROOTS = ['apps', 'libs', 'scripts/src', 'scripts/build.mjs', '.swcrc', 'tsconfig.base.json', 'package-lock.json'];
const SKIP = new Set(['node_modules', 'dist', '.vite']);

function newestMtimeMs(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) {
    // Tests are not built: editing one needs no build.
    return /\.spec\.ts$/.test(path) ? 0 : stat.mtimeMs;
  }
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (!SKIP.has(entry)) {
      newest = Math.max(newest, newestMtimeMs(join(path, entry)));
    }
  }
  return newest;
}

function stampMtimeMs() {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return -1;
  }
}

const stamp = stampMtimeMs();
const newest = Math.max(...ROOTS.map((r) => newestMtimeMs(join(root, r))));
if (stamp < newest) {
  process.stderr.write(stamp < 0 ? 'building (no build yet)...\n' : 'building (sources changed since the last build)...\n');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
}
