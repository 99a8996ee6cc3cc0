import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindOf, parseProviderOffers } from '@wrs/config';
import { describeNeeding, executableMissing } from '@wrs/testing';
import { workloadsOf, type Container, type EnvVar, type K8sObject } from './kubelet/manifest-types';
import { OPERATOR_SECRETS } from './kubelet/operator-secrets';
import { KUBECTL, OVERLAYS, renderOverlay, ROOT } from './kubelet/render';
import { modelFor } from './kubelet/schemas';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function named(objects: readonly K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) {
    throw new Error(`no ${kind} ${name}`);
  }
  return found;
}

/** A label selector as `kubectl -l` reads it: `k=v` or `k in (a,b)` terms, comma-separated; none selects all. */
function selects(selector: string | undefined, labels: Record<string, string>): boolean {
  const terms = selector?.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((term) => {
    const set = /^\s*(\S+)\s+in\s+\(([^)]*)\)\s*$/.exec(term);
    if (set) {
      return set[2]!
        .split(',')
        .map((v) => v.trim())
        .includes(labels[set[1]!] ?? '\0');
    }
    const [key, value] = term.split('=');
    return labels[key!.trim()] === value?.trim();
  });
}

function envOf(container: Container, name: string): EnvVar | undefined {
  return container.env?.find((e) => e.name === name);
}

// What `kubectl apply` would send, overlay by overlay (the base files themselves: manifests.unit.spec.ts).
describeNeeding(executableMissing(KUBECTL, 'apt-get install kubectl, or put kubectl at /usr/bin'))('rendered overlays', () => {
  const rendered = new Map<string, K8sObject[]>();
  beforeAll(async () => {
    for (const overlay of OVERLAYS) {
      rendered.set(overlay, await renderOverlay(overlay));
    }
  });
  const each = (body: (objects: K8sObject[], overlay: string) => void) => () => OVERLAYS.forEach((o) => body(rendered.get(o)!, o));

  it(
    'every object is valid against its schema (Kubernetes, Prometheus Operator CRDs)',
    each((objects) => {
      // kubernetes-models has no Gateway API schemas: the HTTPRoute is checked field by field elsewhere.
      for (const object of objects.filter((o) => o.kind !== 'HTTPRoute')) {
        const Model = modelFor(object.apiVersion, object.kind);
        expect(() => new Model(object).validate()).not.toThrow();
      }
      expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']));
    }),
  );

  it(
    `images are pinned to the release (${VERSION}), and the migrate Job is named after it and removed when done`,
    each((objects) => {
      const workloads = workloadsOf(objects);
      for (const container of workloads.flatMap((w) => w.pod.containers)) {
        expect(container.image).toMatch(
          new RegExp(`^workload-run-service/[a-z-]+:${VERSION.replace(/\./g, '\\.')}(@sha256:[0-9a-f]{64})?$`),
        );
      }
      const job = objects.find((o) => o.kind === 'Job')!;
      expect(job.metadata.name).toBe(`migrate-${VERSION}`);
      expect(job.metadata.labels?.['app.kubernetes.io/version']).toBe(VERSION);
      expect((job.spec as { ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished).toBeGreaterThan(0);
    }),
  );

  it(
    'a PodDisruptionBudget never forbids every eviction: maxUnavailable, or minAvailable below the replicas',
    each((objects) => {
      const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
      expect(pdbs.map((p) => p.metadata.name).sort()).toEqual(['api', 'run-worker', 'stream-relay']);
      for (const pdb of pdbs) {
        const spec = pdb.spec as { minAvailable?: number; maxUnavailable?: number };
        const replicas = (named(objects, 'Deployment', pdb.metadata.name).spec as { replicas: number }).replicas;
        const hpaMin = (named(objects, 'HorizontalPodAutoscaler', pdb.metadata.name).spec as { minReplicas: number }).minReplicas;
        if (spec.minAvailable !== undefined) {
          expect(spec.minAvailable).toBeLessThan(Math.min(replicas, hpaMin));
        } else {
          expect(spec.maxUnavailable).toBeGreaterThanOrEqual(1);
        }
      }
    }),
  );

  it(
    'the relay scales on its open streams (a metric the code exports) and CPU, the others on CPU',
    each((objects) => {
      const catalogue = readFileSync(join(ROOT, 'libs/observability/src/metrics/catalogue.ts'), 'utf8');
      const metricsOf = (name: string) =>
        (
          named(objects, 'HorizontalPodAutoscaler', name).spec as {
            metrics: { type: string; pods?: { metric: { name: string } }; resource?: { name: string } }[];
          }
        ).metrics;
      const relay = metricsOf('stream-relay');
      expect(relay.filter((m) => m.type === 'Pods').map((m) => m.pods!.metric.name)).toEqual(['wrs_sse_open_streams']);
      expect(catalogue).toContain(`name: 'wrs_sse_open_streams'`);
      for (const name of ['api', 'run-worker', 'stream-relay']) {
        expect(
          metricsOf(name)
            .filter((m) => m.type === 'Resource')
            .map((m) => m.resource!.name),
        ).toEqual(['cpu']);
      }
    }),
  );

  it(
    'the ServiceMonitor scrapes every Deployment through a headless Service on the operator port',
    each((objects) => {
      const monitor = named(objects, 'ServiceMonitor', 'workload-run-service').spec as {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string }[];
      };
      const service = objects.find(
        (o) => o.kind === 'Service' && Object.entries(monitor.selector.matchLabels).every(([k, v]) => o.metadata.labels?.[k] === v),
      )!;
      const spec = service.spec as { clusterIP: string; selector: Record<string, string>; ports: { name: string; targetPort: string }[] };
      expect(spec.clusterIP).toBe('None');
      expect(monitor.endpoints.map((e) => e.port)).toEqual(spec.ports.map((p) => p.name));
      for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
        const template = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
        expect(template.metadata.labels).toMatchObject(spec.selector);
        const ports = workloadsOf([deployment])[0]!.pod.containers[0]!.ports ?? [];
        expect(ports.map((p) => p.name)).toContain(spec.ports[0]!.targetPort);
      }
    }),
  );

  it(
    'every Secret a pod reads is rendered or one the operator creates as docs/operations.md says',
    each((objects) => {
      const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
      const rendered = new Set(objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name));
      for (const pod of workloadsOf(objects).map((w) => w.pod)) {
        const refs = [
          ...pod.containers.flatMap((c) => (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []))),
          ...(pod.volumes ?? []).flatMap((v) =>
            v.secret ? (v.secret.items ?? []).map((i) => ({ name: v.secret!.secretName, key: i.key })) : [],
          ),
        ];
        for (const ref of refs.filter((r) => !rendered.has(r.name))) {
          expect((OPERATOR_SECRETS as Record<string, readonly string[]>)[ref.name]).toContain(ref.key);
        }
      }
      for (const [name, keys] of Object.entries(OPERATOR_SECRETS)) {
        expect(docs).toContain(`create secret generic ${name} `);
        keys.forEach((key) => expect(docs).toMatch(new RegExp(`--from-(file|literal)=${key.replace(/\./g, '\\.')}=`)));
      }
    }),
  );

  it(
    'api and run-worker read one PROVIDERS_JSON; a container offer comes with the engine socket mounted',
    each((objects, overlay) => {
      const config = named(objects, 'ConfigMap', 'workload-run-service').data!;
      const kinds = parseProviderOffers(config['providers-json']).map(kindOf);
      expect(kinds).toContain('kubernetes');
      expect(kinds).not.toContain('simulator');
      expect(kinds.includes('container')).toBe(overlay === 'dev');
      const workloads = workloadsOf(objects);
      for (const name of ['api', 'run-worker']) {
        const container = workloads.find((w) => w.name === name)!.pod.containers[0]!;
        expect(envOf(container, 'PROVIDERS_JSON')?.valueFrom?.configMapKeyRef).toEqual({
          name: 'workload-run-service',
          key: 'providers-json',
        });
      }
      const worker = workloads.find((w) => w.name === 'run-worker')!.pod.containers[0]!;
      const socket = envOf(worker, 'CONTAINER_ENGINE_SOCKET')?.value;
      expect(socket !== undefined).toBe(kinds.includes('container'));
      if (socket) {
        expect(worker.volumeMounts?.map((m) => m.mountPath)).toContain(socket);
      }
    }),
  );

  it(
    'the upgrade steps of docs/operations.md select config and migrate, then the run-worker, then the rest',
    each((objects) => {
      const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
      const section = docs.slice(docs.indexOf('## Upgrades'), docs.indexOf('## Draining'));
      const steps = [...section.matchAll(/kubectl -n wrs apply -k \$O(?: -l (?:'([^']+)'|(\S+)))?\n/g)].map((m) => m[1] ?? m[2]);
      const selected = (selector: string | undefined) =>
        objects
          .filter((o) => selects(selector, o.metadata.labels ?? {}))
          .map((o) => `${o.kind}/${o.metadata.name}`)
          .sort();
      expect(steps.length).toBe(3);
      expect(selected(steps[0])).toEqual(['ConfigMap/workload-run-service', `Job/migrate-${VERSION}`]);
      expect(selected(steps[1])).toEqual(['Deployment/run-worker']);
      expect(selected(steps[2]).length).toBe(objects.length);
    }),
  );

  it(
    'every file a variable names lies in a volume the container mounts',
    each((objects) => {
      for (const workload of workloadsOf(objects)) {
        for (const container of workload.pod.containers) {
          const mounts = (container.volumeMounts ?? [])
            .filter((m) => workload.pod.volumes?.some((v) => v.name === m.name))
            .map((m) => m.mountPath);
          const files = (container.env ?? []).flatMap((e) =>
            [...(e.value ?? '').matchAll(/(?:^|[:,])(\/[^/:,][^:,]*)/g)].map((m) => m[1]!),
          );
          for (const file of files) {
            expect([file, mounts.some((m) => file === m || file.startsWith(`${m}/`))]).toEqual([file, true]);
          }
        }
      }
    }),
  );
});
