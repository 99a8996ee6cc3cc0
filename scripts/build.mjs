// Compiles every app, lib and script to CommonJS under dist/ with SWC (decorator metadata on, which
// Nest's dependency injection needs), rewriting the @wrs/* path aliases to relative imports.
// Type checking is `npm run typecheck`; this step only transpiles, so it takes about a second. Then
// Vite builds the web console (apps/console) into dist/apps/console, which the api serves at /console.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
const paths = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions.paths;
const buildRc = join(root, 'dist', '.swcrc.build.json');

rmSync(join(root, 'dist'), { recursive: true, force: true });
cpSync(join(root, '.swcrc'), buildRc);
writeFileSync(buildRc, JSON.stringify({ ...swcrc, jsc: { ...swcrc.jsc, baseUrl: root, paths } }));
execFileSync(
  join(root, 'node_modules', '.bin', 'swc'),
  [
    'apps',
    'libs',
    'scripts/src',
    '-d',
    'dist',
    '--config-file',
    buildRc,
    '--ignore',
    '**/*.spec.ts,**/*.testing.ts,apps/console/**',
    '--quiet',
  ],
  { cwd: root, stdio: 'inherit' },
);
cpSync(join(root, 'libs/contracts/openapi.yaml'), join(root, 'dist/libs/contracts/openapi.yaml'));
const { build } = await import('vite');
await build({ configFile: join(root, 'apps', 'console', 'vite.config.mjs') });
// Last: the time this build is current from (scripts/build-if-stale.mjs compares sources with it).
writeFileSync(join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
