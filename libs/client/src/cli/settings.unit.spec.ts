import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveConfig } from './config-writer';
import { UsageError } from './exit-codes';
import type { CliIo } from './io';
import { DEFAULT_BASE_URL, loadSettings } from './settings';

function io(env: Record<string, string>, home: string): CliIo {
  return { env, home, interactive: false, out: () => undefined, err: () => undefined, status: () => undefined, now: () => 0 };
}

describe('where wrs finds its base URL and token', () => {
  it('defaults to the local stack with no token', () => {
    const home = mkdtempSync(join(tmpdir(), 'wrs-home-'));
    expect(loadSettings(io({}, home))).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      token: undefined,
      tokenOrigin: `"token" in ${join(home, '.config/wrs/config.json')}`,
      workspace: undefined,
      configPath: join(home, '.config/wrs/config.json'),
    });
  });

  it('reads ~/.config/wrs/config.json, with the environment taking precedence', () => {
    const home = mkdtempSync(join(tmpdir(), 'wrs-home-'));
    saveConfig(join(home, '.config/wrs/config.json'), { baseUrl: 'http://file/api/v1', token: 'file-token', workspace: 'ws-file' });
    expect(loadSettings(io({}, home))).toMatchObject({ baseUrl: 'http://file/api/v1', token: 'file-token', workspace: 'ws-file' });
    expect(loadSettings(io({ WRS_TOKEN: 'env-token', WRS_BASE_URL: 'http://env/api/v1' }, home))).toMatchObject({
      baseUrl: 'http://env/api/v1',
      token: 'env-token',
    });
  });

  it('writes the config file 0600 in a 0700 folder, even over a looser file', () => {
    const home = mkdtempSync(join(tmpdir(), 'wrs-home-'));
    const path = join(home, 'wrs', 'config.json');
    saveConfig(path, { token: 'a' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'wrs')).mode & 0o777).toBe(0o700);
  });

  it.each([0o644, 0o640, 0o604, 0o660])('refuses a config file with mode %o (others could read the token)', (mode) => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ token: 'secret' }));
    chmodSync(path, mode);
    expect(() => loadSettings(io({ WRS_CONFIG: path }, dir))).toThrow(UsageError);
    expect(() => loadSettings(io({ WRS_CONFIG: path }, dir))).toThrow(/chmod 600/);
    expect(() => loadSettings(io({ WRS_CONFIG: path }, dir))).not.toThrow(/secret/);
  });

  it('refuses a config file that is not a JSON object of strings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-config-'));
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ token: 42 }), { mode: 0o600 });
    expect(() => loadSettings(io({ WRS_CONFIG: path }, dir))).toThrow(/"token" must be a string/);
  });
});
