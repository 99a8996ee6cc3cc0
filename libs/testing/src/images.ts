/**
 * Container images for the Testcontainers path, pinned in this one place (a bot can bump them) and
 * overridable by environment, e.g. with the locally built images of scripts/podman on a machine that
 * cannot pull from a registry.
 */
export const TEST_IMAGES = {
  nats: 'nats:2.12.2',
  postgres: 'postgres:15.14-alpine',
  redis: 'redis:7.4.6-alpine',
} as const;

export function testImage(name: keyof typeof TEST_IMAGES, env: NodeJS.ProcessEnv = process.env): string {
  return imageFromEnv(name, env) ?? TEST_IMAGES[name];
}

/** The look-alikes of those images that scripts/podman/setup.sh builds from Debian's packages (no registry needed). */
export const LOOKALIKE_IMAGES = {
  nats: 'localhost/wrs-test/nats:2.9',
  postgres: 'localhost/wrs-test/postgres:15',
  redis: 'localhost/wrs-test/redis:7',
} as const;

/** The image to run as a look-alike: the environment's test image if set, else the one setup.sh builds. */
export function lookalikeImage(name: keyof typeof LOOKALIKE_IMAGES, env: NodeJS.ProcessEnv = process.env): string {
  return imageFromEnv(name, env) ?? LOOKALIKE_IMAGES[name];
}

/** The image the environment names for this dependency (`WRS_TEST_IMAGE_NATS` and so on), if any. */
function imageFromEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return env[`WRS_TEST_IMAGE_${name.toUpperCase()}`];
}
