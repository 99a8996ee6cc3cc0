import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './exit-codes';
import type { CliIo } from './io';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/api/v1';

export interface CliSettings {
  readonly baseUrl: string;
  readonly token: string | undefined;
  /** Where the token came from, for a message about it that must not quote it. */
  readonly tokenOrigin: string;
  readonly workspace: string | undefined;
  readonly configPath: string;
}

/** The config file's shape: every member optional. */
export interface ConfigFile {
  baseUrl?: string;
  token?: string;
  workspace?: string;
}

export function configPathOf(io: CliIo): string {
  return io.env['WRS_CONFIG'] ?? join(io.home, '.config', 'wrs', 'config.json');
}

/**
 * Where to call and with what: WRS_BASE_URL, WRS_TOKEN and WRS_WORKSPACE, else the config file, else the
 * local stack. Never a flag, because a token on the command line lands in shell history and `ps`.
 */
export function loadSettings(io: CliIo): CliSettings {
  const configPath = configPathOf(io);
  const file = readConfigFile(configPath);
  return {
    baseUrl: io.env['WRS_BASE_URL'] ?? file.baseUrl ?? DEFAULT_BASE_URL,
    token: io.env['WRS_TOKEN'] || file.token,
    tokenOrigin: io.env['WRS_TOKEN'] ? 'WRS_TOKEN' : `"token" in ${configPath}`,
    workspace: io.env['WRS_WORKSPACE'] ?? file.workspace,
    configPath,
  };
}

/** Reads the config file, refusing one that other users could read (it may hold a token). */
export function readConfigFile(path: string): ConfigFile {
  if (!existsSync(path)) {
    return {};
  }
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new UsageError(`${path} is open to other users (mode ${mode.toString(8)}); it may hold a token: chmod 600 ${path}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${path} is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${path} must hold a JSON object`);
  }
  const config: ConfigFile = {};
  for (const key of ['baseUrl', 'token', 'workspace'] as const) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== 'string') {
      throw new UsageError(`${path}: "${key}" must be a string`);
    }
    if (typeof value === 'string') {
      config[key] = value;
    }
  }
  return config;
}
