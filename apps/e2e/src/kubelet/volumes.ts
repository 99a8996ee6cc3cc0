import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ContainerConfigError, lookup, type ObjectData } from './container-env';
import type { Container, KeyToPath, PodSpec, Volume } from './manifest-types';

/** A container path and where the test put it: the mount root rewritten under a temporary directory. */
export interface Mount {
  readonly mountPath: string;
  readonly localPath: string;
}

/**
 * Writes each of the container's mounted volumes under `root` (a Secret's or ConfigMap's keys as files
 * with their modes, an emptyDir as a directory) and says where each mount path went. A hostPath is the
 * node's own file: the test has no node, so it becomes an empty place (its parent directory only).
 */
export function materializeMounts(pod: PodSpec, container: Container, data: ObjectData, root: string): Mount[] {
  return (container.volumeMounts ?? []).map((mount) => {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    if (!volume) {
      // The API server refuses such a pod outright.
      throw new ContainerConfigError(`container ${container.name} mounts volume ${mount.name}, which the pod does not have`);
    }
    const localPath = join(root, mount.mountPath);
    writeVolume(volume, data, localPath);
    return { mountPath: mount.mountPath, localPath };
  });
}

function writeVolume(volume: Volume, data: ObjectData, localPath: string): void {
  if (volume.secret || volume.configMap) {
    const kind = volume.secret ? 'Secret' : 'ConfigMap';
    const source = volume.secret
      ? { name: volume.secret.secretName, items: volume.secret.items, mode: volume.secret.defaultMode, optional: volume.secret.optional }
      : {
          name: volume.configMap!.name,
          items: volume.configMap!.items,
          mode: volume.configMap!.defaultMode,
          optional: volume.configMap!.optional,
        };
    const all = (kind === 'Secret' ? data.secrets : data.configMaps).get(source.name);
    if (!all && !source.optional) {
      throw new ContainerConfigError(`volume ${volume.name}: no ${kind} ${source.name}`);
    }
    const items: KeyToPath[] = source.items ?? Object.keys(all ?? {}).map((key) => ({ key, path: key }));
    mkdirSync(localPath, { recursive: true });
    for (const item of items) {
      const content = lookup(kind, data, { name: source.name, key: item.key, optional: source.optional ?? false });
      if (content !== undefined) {
        const file = join(localPath, item.path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
        chmodSync(file, item.mode ?? source.mode ?? 0o644);
      }
    }
  } else if (volume.emptyDir) {
    mkdirSync(localPath, { recursive: true });
  } else if (volume.hostPath) {
    mkdirSync(dirname(localPath), { recursive: true });
  } else {
    throw new Error(`volume ${volume.name}: a kind the test does not stand in for`);
  }
}

/**
 * An env value naming files under a mount path names them under the mount's local place instead: at
 * the start of the value or after `:` or `,` (the `id:/path,...` lists), followed by `/` or the end.
 */
export function rewritePaths(value: string, mounts: readonly Mount[]): string {
  const longestFirst = [...mounts].sort((a, b) => b.mountPath.length - a.mountPath.length);
  return value.replace(/(^|[:,])(\/[^:,]*)/g, (whole, lead: string, path: string) => {
    const mount = longestFirst.find((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    return mount ? `${lead}${mount.localPath}${path.slice(mount.mountPath.length)}` : whole;
  });
}
