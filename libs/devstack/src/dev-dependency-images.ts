import { readFileSync } from 'node:fs';

/** The servers the stack needs, by the name compose.yaml gives their services. */
export type DevDependencyKind = 'nats' | 'postgres' | 'redis';

export const DEV_DEPENDENCY_KINDS: readonly DevDependencyKind[] = ['nats', 'postgres', 'redis'];

/** An image to run a server from, and the variable that chose it (named when a pull fails). */
export interface DevDependencyImage {
  readonly image: string;
  readonly variable: string;
}

/** WRS_IMAGE_NATS, WRS_IMAGE_POSTGRES, WRS_IMAGE_REDIS: the Compose stack's variables, so both use one setting. */
export function imageVariable(kind: DevDependencyKind): string {
  return `WRS_IMAGE_${kind.toUpperCase()}`;
}

/**
 * The defaults docker/compose.yaml writes (`${WRS_IMAGE_NATS:-nats:2.12.2-alpine}`), read from its text
 * so that the image versions are written in one place only.
 */
export function composeImageDefaults(composeText: string): Record<DevDependencyKind, string> {
  const defaults = DEV_DEPENDENCY_KINDS.map((kind) => {
    const match = new RegExp(`\\$\\{${imageVariable(kind)}:-([^}\\s]+)\\}`).exec(composeText);
    if (!match?.[1]) {
      throw new Error(`docker/compose.yaml gives no default image for ${imageVariable(kind)}`);
    }
    return [kind, match[1]] as const;
  });
  return Object.fromEntries(defaults) as Record<DevDependencyKind, string>;
}

/** Each server's image: the variable when set, else the Compose file's default. */
export function devDependencyImages(
  composeFile: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<DevDependencyKind, DevDependencyImage> {
  const defaults = composeImageDefaults(readFileSync(composeFile, 'utf8'));
  const entries = DEV_DEPENDENCY_KINDS.map((kind) => {
    const variable = imageVariable(kind);
    return [kind, { image: env[variable] || defaults[kind], variable }] as const;
  });
  return Object.fromEntries(entries) as Record<DevDependencyKind, DevDependencyImage>;
}
