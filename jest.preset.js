// Shared Jest settings: SWC transpiles TypeScript with decorator metadata (Nest needs it), and the
// @wrs/* aliases map to the libs' sources, as in tsconfig.base.json.
const { readFileSync } = require('node:fs');
const { compilerOptions } = JSON.parse(readFileSync(`${__dirname}/tsconfig.base.json`, 'utf8'));
const swcrc = JSON.parse(readFileSync(`${__dirname}/.swcrc`, 'utf8'));

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

// ESM-only packages (the Kubernetes client and what it imports) are compiled to CommonJS for Jest's
// CommonJS runtime; Node itself loads them with require(esm).
const esmPackages = ['@kubernetes/client-node', 'openid-client', 'oauth4webapi', 'jose', 'jsonpath-plus', 'rfc4648'];

module.exports = (tier, extra = {}) => ({
  rootDir: __dirname,
  displayName: tier,
  testEnvironment: 'node',
  testMatch: [`<rootDir>/{apps,libs}/**/*.${tier}.spec.ts`],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false, sourceMaps: 'inline' }],
    '^.+\\.m?js$': ['@swc/jest', { swcrc: false, jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleNameMapper,
  // The summary line of the tier says how many tests were skipped and why; in CI a skip fails the run.
  reporters: ['default', ['<rootDir>/scripts/jest/skip-reporter.cjs', { tier }]],
  // dist/ holds built copies (and, after `npm run client:package`, a second package.json named like the client's).
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  ...extra,
});
