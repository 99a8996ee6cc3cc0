// `npm run client:package [OUT]`: the client as a package a user installs (OUT defaults to dist/libs/client).
// Its JavaScript (SWC) and declarations (tsc), plus the contract's types it names and the run event kinds
// generated from the contract (pure data it loads at run time): those live in libs/contracts here, so they
// travel inside the package (src/contract/) and the declarations and requires point there.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? join(root, 'dist/libs/client'));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const CONTRACT_TYPES = '@wrs/contracts/types';
const CONTRACT_KINDS = '@wrs/contracts/kinds';
const KINDS_MODULE = 'generated/run-event-kinds';

rmSync(out, { recursive: true, force: true });
// CommonJS with the annotation Node's cjs-module-lexer reads, so an ES module's named imports
// (`import { WrsClient } from '@workload-run-service/client'`) find SWC's getter exports.
const commonJs = ['-C', 'module.type=commonjs', '-C', 'module.exportInteropAnnotation=true'];
execFileSync(
  bin('swc'),
  ['src', '-d', out, '--config-file', join(root, '.swcrc'), ...commonJs, '--ignore', '**/*.spec.ts,**/*.testing.ts', '--quiet'],
  {
    cwd: join(root, 'libs/client'),
    stdio: 'inherit',
  },
);
execFileSync(
  bin('swc'),
  [`${KINDS_MODULE}.ts`, '-d', join(out, 'src/contract'), '--config-file', join(root, '.swcrc'), ...commonJs, '--quiet'],
  {
    cwd: join(root, 'libs/contracts/src'),
    stdio: 'inherit',
  },
);

const declarations = mkdtempSync(join(tmpdir(), 'wrs-client-types-'));
try {
  execFileSync(bin('tsc'), ['-p', join(root, 'libs/client/tsconfig.lib.json'), '--outDir', declarations], { stdio: 'inherit' });
  cpSync(join(declarations, 'libs/client/src'), join(out, 'src'), { recursive: true });
  cpSync(join(declarations, 'libs/contracts/src'), join(out, 'src/contract'), { recursive: true });
} finally {
  rmSync(declarations, { recursive: true, force: true });
}

for (const file of filesUnder(join(out, 'src'))) {
  let text = readFileSync(file, 'utf8');
  const targetOf = (module) => {
    const target = relative(dirname(file), join(out, 'src/contract', module));
    return target.startsWith('.') ? target : `./${target}`;
  };
  // The run event kinds, in declarations and in JavaScript (SWC writes double quotes).
  for (const quote of [`'`, `"`]) {
    text = text.replaceAll(`${quote}${CONTRACT_KINDS}${quote}`, `${quote}${targetOf(KINDS_MODULE)}${quote}`);
  }
  if (file.endsWith('.d.ts')) {
    text = text.replaceAll(`'${CONTRACT_TYPES}'`, `'${targetOf('types')}'`);
  }
  writeFileSync(file, text);
  if (file.endsWith('.js') && text.includes('@wrs/')) {
    // Only types may come from the repository's libs (lint says so); a value import would not resolve once installed.
    throw new Error(`${file} requires a repository lib (@wrs/...): the packaged client could not load it`);
  }
}
cpSync(join(root, 'libs/client/package.json'), join(out, 'package.json'));
console.error(`ready: npm pack ${relative(process.cwd(), out) || '.'}`);

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}
