// Lint that finds bugs, not style: floating promises, non-exhaustive switches, loose equality, and
// module boundaries that really constrain (the domain imports no I/O; apps never import apps).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const IO_PACKAGES = [
  '@nats-io/*',
  'pg',
  'typeorm',
  'ioredis',
  '@nestjs/*',
  'express',
  'testcontainers',
  'node:fs',
  'node:net',
  'node:http',
  'node:child_process',
  'fs',
  'net',
  'http',
  'child_process',
];

/** Node's built-in modules that do I/O or reach outside the process, with and without the `node:` prefix. */
const NODE_IO = [
  'fs',
  'fs/*',
  'net',
  'http',
  'https',
  'http2',
  'child_process',
  'dgram',
  'dns',
  'tls',
  'os',
  'worker_threads',
  'cluster',
  'process',
];

/** The domain is pure: it decides, others do I/O (checked by eslint-boundaries.unit.spec.ts). */
export const DOMAIN_RESTRICTED_IMPORTS = [
  'error',
  {
    patterns: [
      {
        group: [...new Set(['node:*', ...NODE_IO, ...IO_PACKAGES])],
        message: 'libs/domain is pure: no I/O, no Node built-ins (do it in a lib or app that calls the domain).',
      },
    ],
  },
];

/** Deployable apps ship without test helpers: only their tests (`*.spec.ts`, `*.testing.ts`) may use them. */
export const APP_RESTRICTED_IMPORTS = [
  'error',
  {
    paths: [
      {
        name: '@wrs/testing',
        message: 'Test helpers are not part of a deployable app: import them from a *.spec.ts or *.testing.ts file.',
      },
    ],
  },
];

/**
 * The published client and the browser console take from this repository only the contract's types (erased
 * when built) and its run event kinds (`@wrs/contracts/kinds`: generated pure data, which the package and
 * the bundle carry).
 */
export const CONTRACT_TYPES_ONLY = [
  'error',
  {
    paths: [{ name: '@wrs/contracts/types', allowTypeImports: true, message: 'Only types from the contract: use `import type`.' }],
    patterns: [
      {
        regex: '^@wrs/(?!contracts/(types|kinds)$)',
        message: 'The client and the console import only `@wrs/contracts/types` (type-only) and `@wrs/contracts/kinds`.',
      },
    ],
  },
];

/**
 * The client's tests, which its package leaves out (scripts/client-package.mjs): the contract's types and
 * kinds, and the test helpers (`@wrs/testing`), as every other test may.
 */
const CLIENT_TESTS_RESTRICTED_IMPORTS = [
  'error',
  {
    paths: CONTRACT_TYPES_ONLY[1].paths,
    patterns: [
      {
        regex: '^@wrs/(?!(contracts/(types|kinds)|testing)$)',
        message: "The client's tests import only `@wrs/contracts/types` (type-only), `@wrs/contracts/kinds` and `@wrs/testing`.",
      },
    ],
  },
];

/** The run event kinds generated from the contract: pure data with no import, open to every project (the domain too). */
const CONTRACT_KINDS = '@wrs/contracts/kinds';

/** A dynamic import or require loads a module all the same, and no-restricted-imports sees only static imports. */
export const NO_DYNAMIC_LOADING = [
  'error',
  { selector: 'ImportExpression', message: 'No dynamic import here: the import restrictions check static imports only.' },
  { selector: "CallExpression[callee.name='require']", message: 'No require here: the import restrictions check static imports only.' },
];

/** Which project may import which, by tag (checked by lint-boundaries.unit.spec.ts). */
const BOUNDARIES = {
  enforceBuildableLibDependency: false,
  allow: [CONTRACT_KINDS],
  depConstraints: [
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain'], bannedExternalImports: IO_PACKAGES },
    { sourceTag: 'type:contract', onlyDependOnLibsWithTags: [] },
    // The client is published on its own: only the contract's types, which its package carries (CONTRACT_TYPES_ONLY).
    { sourceTag: 'type:client', onlyDependOnLibsWithTags: ['type:contract'] },
    { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:domain', 'type:contract'] },
    {
      sourceTag: 'type:data-access',
      onlyDependOnLibsWithTags: ['type:data-access', 'type:util', 'type:domain', 'type:contract'],
    },
    {
      sourceTag: 'type:app',
      onlyDependOnLibsWithTags: ['type:data-access', 'type:util', 'type:domain', 'type:contract'],
    },
    { sourceTag: 'type:dev', onlyDependOnLibsWithTags: ['type:util', 'type:domain'] },
    {
      sourceTag: 'type:testing',
      onlyDependOnLibsWithTags: ['type:util', 'type:domain', 'type:contract', 'type:data-access', 'type:dev'],
    },
    { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['*'] },
    // A lib that serves one app carries that app's scope; the other apps may not import it.
    { sourceTag: 'scope:api', onlyDependOnLibsWithTags: ['scope:shared', 'scope:api'] },
    { sourceTag: 'scope:worker', onlyDependOnLibsWithTags: ['scope:shared', 'scope:worker'] },
    { sourceTag: 'scope:relay', onlyDependOnLibsWithTags: ['scope:shared', 'scope:relay'] },
    { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared'] },
    // The web console runs in a browser: it talks to the API over HTTP and takes only the contract's types.
    { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['type:contract'] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    // End-to-end tests, the bench and the chaos run drive the whole system.
    { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['*'] },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.nx/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...nx.configs['flat/base'],
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/await-thenable': 'error',
      eqeqeq: ['error', 'always'],
      curly: ['error', 'all'],
      'no-console': 'off',
      '@nx/enforce-module-boundaries': ['error', BOUNDARIES],
    },
  },
  {
    files: ['libs/domain/src/**/*.ts'],
    rules: { 'no-restricted-imports': DOMAIN_RESTRICTED_IMPORTS, 'no-restricted-syntax': NO_DYNAMIC_LOADING },
  },
  {
    files: ['libs/client/src/**/*.ts', 'apps/console/src/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': CONTRACT_TYPES_ONLY, 'no-restricted-syntax': NO_DYNAMIC_LOADING },
  },
  {
    files: ['libs/client/src/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': CLIENT_TESTS_RESTRICTED_IMPORTS },
  },
  {
    files: ['apps/api/src/**/*.ts', 'apps/run-worker/src/**/*.ts', 'apps/stream-relay/src/**/*.ts', 'apps/gateway/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.testing.ts'],
    rules: { 'no-restricted-imports': APP_RESTRICTED_IMPORTS },
  },
  {
    // Only tests use the test helpers (a shipped lib or app may not, not even by a dynamic import), and
    // tests seed the runs table with the worker's projection, its only writer.
    files: ['**/*.spec.ts', '**/*.testing.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', { ...BOUNDARIES, allow: [...BOUNDARIES.allow, '@wrs/projection', '@wrs/testing'] }],
    },
  },
);
