import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('durability is a stated decision (docs/operations.md, Durability)', () => {
  it('the production NATS cluster (2.12) fsyncs every write before acknowledging it, on 3 nodes', () => {
    const values = parse(readFileSync(join(ROOT, 'deploy/nats/values.yaml'), 'utf8')) as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { merge: Record<string, unknown> } };
      container: { image: { tag: string } };
    };
    expect(values.config.jetstream.merge['sync_interval']).toBe('always');
    expect(values.config.cluster).toEqual({ enabled: true, replicas: 3 });
    expect(values.container.image.tag).toMatch(/^2\.12\./);
  });

  it('nothing that nats-server 2.9 (tests, CI, the test images, Compose on them) loads sets sync_interval, which 2.9 refuses', () => {
    const loadedBy29 = [
      join(ROOT, '.ci/run'),
      join(ROOT, 'docker/nats/nats-2.9.conf'),
      ...filesUnder(join(ROOT, 'docker/test-images')),
      ...filesUnder(join(ROOT, 'scripts/podman')),
    ];
    // A setting, not a comment that explains its absence.
    const sets = (file: string) => /^[^#\n]*\bsync(_interval)?\s*[:=]/m.test(readFileSync(file, 'utf8'));
    expect(loadedBy29.filter(sets)).toEqual([]);
    expect(sets(join(ROOT, 'docker/nats/nats.conf'))).toBe(true);
  });

  it('the operations docs say what a power failure can lose under each setting, citing the analysis', () => {
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const section = docs.slice(docs.indexOf('## Durability'));
    for (const term of [
      'sync_interval: always',
      'synchronous_commit',
      'https://jepsen.io/analyses/nats-2.12.1',
      'num_replicas',
      'max_age',
    ]) {
      expect(section).toContain(term);
    }
  });
});
