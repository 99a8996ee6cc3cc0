import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates environment variables once, at boot, into a typed object. The message names every bad
 * variable (never its value: a value may be a secret). Nothing else in the codebase reads process.env.
 */
export function loadConfig<T extends object>(schema: new () => T, env: Record<string, string | undefined>): T {
  const config = plainToInstance(schema, env, { exposeDefaultValues: true, enableImplicitConversion: false });
  const errors = validateSync(config, { whitelist: true, forbidUnknownValues: false });
  if (errors.length > 0) {
    throw new ConfigError(errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? { invalid: 'is invalid' }).join('; ')}`));
  }
  return config;
}

/** Drops any password from a URL before it is printed. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
