import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canMintTokens, noTokenMessage } from './commands/token';

describe('the hint without a token', () => {
  it('in a repository checkout, points at wrs token (which works there)', () => {
    const message = noTokenMessage('/home/u/.config/wrs/config.json', true);
    expect(message).toBe(
      'no token: set WRS_TOKEN or "token" in /home/u/.config/wrs/config.json (for the local stack: wrs token --workspace demo)',
    );
  });

  it('in a packed install, where wrs token refuses, says where a token comes from instead', () => {
    const message = noTokenMessage('/home/u/.config/wrs/config.json', false);
    expect(message).not.toContain('wrs token');
    expect(message).toContain('set WRS_TOKEN or "token" in /home/u/.config/wrs/config.json');
    expect(message).toContain('identity provider');
    expect(message).toContain("`npm run token -- --workspace demo` prints in the service's checkout");
  });

  it('knows which it is by the token script being there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-cli-hint-'));
    const script = join(dir, 'mint-token.js');
    expect(canMintTokens(script)).toBe(false);
    writeFileSync(script, '');
    expect(canMintTokens(script)).toBe(true);
  });
});
