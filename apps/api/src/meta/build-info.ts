import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildInfo } from './meta.controller';

/** The package version from the repository's package.json, and the commit when the build knows it. */
export function buildInfo(commit: string | undefined): BuildInfo {
  return { version: packageVersion(), commit: commit ?? null };
}

function packageVersion(): string {
  for (const up of ['../../../..', '../../../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { version?: string };
      if (pkg.version) {
        return pkg.version;
      }
    } catch {
      // try the next candidate: the source tree and dist/ sit at different depths
    }
  }
  return '0.0.0';
}
