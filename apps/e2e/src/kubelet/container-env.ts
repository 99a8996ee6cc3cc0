import type { Container, K8sObject, KeyRef } from './manifest-types';

/** Secret and ConfigMap data by object name, as the kubelet reads them from the API server. */
export interface ObjectData {
  readonly configMaps: ReadonlyMap<string, Record<string, string>>;
  readonly secrets: ReadonlyMap<string, Record<string, string>>;
}

/** What the kubelet refuses to start a container for (its CreateContainerConfigError). */
export class ContainerConfigError extends Error {
  override readonly name = 'ContainerConfigError';
}

/** The rendered ConfigMaps, with the Secrets the operator creates (never rendered: see docs/operations.md). */
export function objectData(objects: readonly K8sObject[], operatorSecrets: Record<string, Record<string, string>>): ObjectData {
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
  const rendered = objects.filter((o) => o.kind === 'Secret').map((o) => [o.metadata.name, decodeSecret(o.data ?? {})] as const);
  return { configMaps, secrets: new Map([...Object.entries(operatorSecrets), ...rendered]) };
}

function decodeSecret(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

export function lookup(kind: 'ConfigMap' | 'Secret', data: ObjectData, ref: KeyRef): string | undefined {
  const object = (kind === 'ConfigMap' ? data.configMaps : data.secrets).get(ref.name);
  const value = object?.[ref.key];
  if (value === undefined && !ref.optional) {
    throw new ContainerConfigError(`${kind} ${ref.name} has no key ${ref.key}${object ? '' : ` (no such ${kind})`}`);
  }
  return value;
}

/**
 * The container's environment as the kubelet builds it: the image's ENV, then the manifest's `env` in
 * order (a later entry wins), values from ConfigMap and Secret keys; a missing optional key sets nothing.
 */
export function containerEnv(container: Container, imageEnv: Record<string, string>, data: ObjectData): Record<string, string> {
  const env: Record<string, string> = { ...imageEnv };
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    const value = from?.configMapKeyRef
      ? lookup('ConfigMap', data, from.configMapKeyRef)
      : from?.secretKeyRef
        ? lookup('Secret', data, from.secretKeyRef)
        : (variable.value ?? '');
    if (value !== undefined) {
      env[variable.name] = value;
    }
  }
  return env;
}
