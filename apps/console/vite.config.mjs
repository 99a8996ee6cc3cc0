// The web console: plain TypeScript and CSS, no runtime dependency. `npm run build` builds it into
// dist/apps/console, which the api serves under /console (same origin as the API, so the session
// cookie and CSRF checks work). `npx nx run console:serve` serves it with hot reload and forwards
// /api to a stack started with `npm start` (PORT 8080).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  logLevel: 'warn',
  // The run event kinds generated from the contract: pure data, the one repository module the bundle carries.
  resolve: {
    alias: { '@wrs/contracts/kinds': join(here, '..', '..', 'libs', 'contracts', 'src', 'generated', 'run-event-kinds.ts') },
  },
  build: {
    outDir: join(here, '..', '..', 'dist', 'apps', 'console'),
    emptyOutDir: true,
    target: 'es2022',
    // The CSP allows no inline script; the polyfill is for browsers older than the target anyway.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
