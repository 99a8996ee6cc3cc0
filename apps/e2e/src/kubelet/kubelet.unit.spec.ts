import { imageStart } from './image-command';
import { rewritePaths } from './volumes';

describe('the kubelet stand-in of the manifest start test', () => {
  it('rewrites paths under a mount in plain values and id:path lists, and nothing else', () => {
    const mounts = [
      { mountPath: '/secrets/kek', localPath: '/tmp/p/secrets/kek' },
      { mountPath: '/secrets/kek-public', localPath: '/tmp/p/secrets/kek-public' },
    ];
    expect(rewritePaths('k1:/secrets/kek/k1.pem,k2:/secrets/kek/k2.pem', mounts)).toBe(
      'k1:/tmp/p/secrets/kek/k1.pem,k2:/tmp/p/secrets/kek/k2.pem',
    );
    expect(rewritePaths('k1:/secrets/kek-public/k1.pub.pem', mounts)).toBe('k1:/tmp/p/secrets/kek-public/k1.pub.pem');
    expect(rewritePaths('/secrets/kek', mounts)).toBe('/tmp/p/secrets/kek');
    expect(rewritePaths('/secrets/kekx/a', mounts)).toBe('/secrets/kekx/a');
    expect(rewritePaths('nats://nats:4222', mounts)).toBe('nats://nats:4222');
  });

  it("reads a target's CMD and the ENV of the stages it is built from", () => {
    const dockerfile = [
      'FROM node AS build',
      'ENV BUILD_ONLY=1',
      'FROM node AS runtime',
      'ENV NODE_ENV=production \\',
      '    METRICS_PORT=9464',
      'FROM runtime AS api',
      'ENV PORT=8080',
      'CMD ["node", "dist/apps/api/src/main.js"]',
    ].join('\n');
    expect(imageStart('workload-run-service/api:0.1.0', dockerfile)).toEqual({
      cmd: ['node', 'dist/apps/api/src/main.js'],
      env: { NODE_ENV: 'production', METRICS_PORT: '9464', PORT: '8080' },
    });
    expect(() => imageStart('nginx:1.27', dockerfile)).toThrow(/not an image of docker\/Dockerfile/);
  });
});
