import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readConfigFile, type ConfigFile } from './settings';

/** Merges values into the config file, which only its owner may read or write (0600, folder 0700). */
export function saveConfig(path: string, values: ConfigFile): void {
  const merged = { ...readConfigFile(path), ...values };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps an existing file's mode; make sure it is 0600 either way.
  chmodSync(path, 0o600);
}
