// Shared Jest settings: SWC transpiles TypeScript with decorator metadata (Nest needs it), and the
// @wrs/* aliases map to the libs' sources, as in tsconfig.base.json.
const { readFileSync } = require('node:fs');
const { compilerOptions } = JSON.parse(readFileSync(`${__dirname}/tsconfig.base.json`, 'utf8'));
const swcrc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

module.exports = (tier, extra = {}) => ({
  rootDir: __dirname,
  displayName: tier,
  testEnvironment: 'node',
  testMatch: [`<rootDir>/{apps,libs}/**/*.${tier}.spec.ts`],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false, sourceMaps: 'inline' }] },
  moduleNameMapper,
  ...extra,
});
