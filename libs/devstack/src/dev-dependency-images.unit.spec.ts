import { join } from 'node:path';
import { composeImageDefaults, devDependencyImages } from './dev-dependency-images';

const COMPOSE = join(__dirname, '..', '..', '..', 'docker', 'compose.yaml');

describe('the images of the dev dependencies: one definition with docker/compose.yaml', () => {
  it('reads the defaults compose.yaml writes for WRS_IMAGE_NATS, WRS_IMAGE_POSTGRES and WRS_IMAGE_REDIS', () => {
    const text = [
      'image: ${WRS_IMAGE_NATS:-nats:9.9.9-alpine}',
      'image: ${WRS_IMAGE_POSTGRES:-registry.example/pg:15}',
      'image: ${WRS_IMAGE_REDIS:-redis:7}',
      'image: ${WRS_IMAGE_API:-localhost/wrs/api:dev}',
    ].join('\n');
    expect(composeImageDefaults(text)).toEqual({ nats: 'nats:9.9.9-alpine', postgres: 'registry.example/pg:15', redis: 'redis:7' });
  });

  it('refuses a compose file without one of the defaults, naming the variable', () => {
    expect(() => composeImageDefaults('image: ${WRS_IMAGE_NATS:-nats:2}\nimage: ${WRS_IMAGE_REDIS:-redis:7}')).toThrow(
      'WRS_IMAGE_POSTGRES',
    );
  });

  it("takes the real compose.yaml's defaults, and a WRS_IMAGE_* variable over them", () => {
    const defaults = devDependencyImages(COMPOSE, {});
    expect(defaults.nats).toEqual({ image: expect.stringMatching(/^nats:/), variable: 'WRS_IMAGE_NATS' });
    expect(defaults.postgres.image).toMatch(/^postgres:/);
    expect(defaults.redis.image).toMatch(/^redis:/);
    const local = devDependencyImages(COMPOSE, { WRS_IMAGE_POSTGRES: 'localhost/wrs-test/postgres:15' });
    expect(local.postgres).toEqual({ image: 'localhost/wrs-test/postgres:15', variable: 'WRS_IMAGE_POSTGRES' });
    expect(local.nats).toEqual(defaults.nats);
  });
});
