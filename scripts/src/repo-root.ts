import { join } from 'node:path';

/** This file runs from dist/scripts/src/: the repository root is three levels up. */
export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const DIST_DIR = join(REPO_ROOT, 'dist');
export const DEV_KEYS_DIR = join(REPO_ROOT, '.local', 'keys');
