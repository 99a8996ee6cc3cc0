import { tenantSafe } from './tenant-safe';

describe('tenantSafe', () => {
  it('hides engine socket paths, with or without unix://', () => {
    expect(tenantSafe('its health probe failed: connect ENOENT unix:///tmp/atk/dead.sock')).toBe(
      'its health probe failed: connect ENOENT <engine socket>',
    );
    expect(tenantSafe('the provider has not answered for 300 s (connect ENOENT /run/podman/podman.sock)')).toBe(
      'the provider has not answered for 300 s (connect ENOENT <engine socket>)',
    );
  });

  it('keeps everything else', () => {
    const message =
      'pinging container registry localhost: Get "https://localhost/v2/": dial tcp 127.0.0.1:443: connect: connection refused';
    expect(tenantSafe(message)).toBe(message);
  });
});
