/** The parts of rendered Kubernetes objects that the manifest tests read (as `kubectl kustomize` prints them). */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly data?: Record<string, string>;
  readonly spec?: unknown;
}

export interface KeyRef {
  readonly name: string;
  readonly key: string;
  readonly optional?: boolean;
}

export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly configMapKeyRef?: KeyRef; readonly secretKeyRef?: KeyRef };
}

export interface KeyToPath {
  readonly key: string;
  readonly path: string;
  readonly mode?: number;
}

export interface Volume {
  readonly name: string;
  readonly secret?: {
    readonly secretName: string;
    readonly items?: KeyToPath[];
    readonly defaultMode?: number;
    readonly optional?: boolean;
  };
  readonly configMap?: { readonly name: string; readonly items?: KeyToPath[]; readonly defaultMode?: number; readonly optional?: boolean };
  readonly emptyDir?: Record<string, unknown>;
  readonly hostPath?: { readonly path: string; readonly type?: string };
}

export interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number };
}

export interface Container {
  readonly name: string;
  readonly image: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: EnvVar[];
  readonly ports?: { readonly name?: string; readonly containerPort: number }[];
  readonly volumeMounts?: { readonly name: string; readonly mountPath: string; readonly readOnly?: boolean }[];
  readonly readinessProbe?: Probe;
}

export interface PodSpec {
  readonly containers: Container[];
  readonly volumes?: Volume[];
}

/** A Deployment's or Job's pod, by the workload's kind and name. */
export interface Workload {
  readonly kind: 'Deployment' | 'Job';
  readonly name: string;
  readonly pod: PodSpec;
}

export function workloadsOf(objects: readonly K8sObject[]): Workload[] {
  return objects
    .filter((o): o is K8sObject & { kind: 'Deployment' | 'Job' } => o.kind === 'Deployment' || o.kind === 'Job')
    .map((o) => ({ kind: o.kind, name: o.metadata.name, pod: (o.spec as { template: { spec: PodSpec } }).template.spec }));
}
