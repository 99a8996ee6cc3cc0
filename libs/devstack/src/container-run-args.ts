import { statSync } from 'node:fs';

/**
 * `podman run` arguments for one service: host network, read-only, no capabilities. Variables pass by name
 * (`--env NAME`), never by value; files they name are mounted read-only at the same path and handed to the
 * image's user (`U`), as a Kubernetes Secret volume with an fsGroup would be.
 */
export function containerRunArgs(name: string, image: string, names: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const files = names.map((n) => env[n] ?? '').flatMap((value) => value.split(',').map((v) => v.replace(/^[\w-]+:/, '')));
  const mounts = [...new Set(files.filter(isRegularFile))].flatMap((f) => ['--volume', `${f}:${f}:ro,U`]);
  return [
    'run',
    '--rm',
    '--name',
    name,
    '--network',
    'host',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--security-opt',
    'no-new-privileges',
    '--cap-drop',
    'ALL',
    ...names.flatMap((n) => ['--env', n]),
    ...mounts,
    image,
  ];
}

function isRegularFile(path: string): boolean {
  try {
    return path.startsWith('/') && statSync(path).isFile();
  } catch {
    return false;
  }
}
