import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { executableMissing, itNeeding } from '@wrs/testing';
import { parseAllDocuments } from 'yaml';
import { modelFor } from './kubelet/schemas';

const ROOT = join(__dirname, '..', '..', '..');
/** The api's body limit (apps/api/src/api-app.ts MAX_BODY_BYTES), which the ingress must match. */
const MAX_BODY_BYTES = 64 * 1024;

/** nginx's size syntax (client_max_body_size): bytes, or k/m/g. */
function nginxSize(value: string): number {
  const match = /^(\d+)([kmg]?)$/i.exec(value.trim());
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? '').toLowerCase()] ?? NaN;
  return Number(match?.[1]) * unit;
}

/** `kubectl kustomize DIR` (rejects with kubectl's message when it fails). */
async function renderKustomize(dir: string): Promise<string> {
  return (await promisify(execFile)('/usr/bin/kubectl', ['kustomize', dir], { encoding: 'utf8' })).stdout;
}

function documents(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJSON() as Record<string, unknown>)
    .filter(Boolean);
}

describe('deployment files', () => {
  const base = join(ROOT, 'deploy/kubernetes/base');
  const manifests = readdirSync(base).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');

  it.each(manifests)('%s is valid against the Kubernetes schemas', (file) => {
    // kubernetes-models has no Gateway API schemas: the HTTPRoute is checked field by field below.
    for (const doc of documents(join(base, file)).filter((d) => d['kind'] !== 'HTTPRoute')) {
      const Model = modelFor(doc['apiVersion'] as string, doc['kind'] as string);
      expect(() => new Model(doc).validate()).not.toThrow();
    }
  });

  it('the kustomizations name every base file and only files that exist', () => {
    const kustomization = documents(join(base, 'kustomization.yaml'))[0] as { resources: string[] };
    const files = kustomization.resources.filter((r) => r.endsWith('.yaml'));
    expect([...files].sort()).toEqual([...manifests].sort());
    // The only other resource: the dashboard and alert rules (their own kustomization).
    expect(kustomization.resources.filter((r) => !r.endsWith('.yaml'))).toEqual(['../../observability']);
    const observability = documents(join(ROOT, 'deploy/observability/kustomization.yaml'))[0] as {
      resources: string[];
      configMapGenerator: { files: string[] }[];
    };
    for (const file of [...observability.resources, ...observability.configMapGenerator.flatMap((g) => g.files)]) {
      expect(existsSync(join(ROOT, 'deploy/observability', file))).toBe(true);
    }
    for (const overlay of ['dev', 'prod']) {
      const k = documents(join(ROOT, 'deploy/kubernetes/overlays', overlay, 'kustomization.yaml'))[0] as {
        resources: string[];
        components?: string[];
      };
      expect(k.resources).toEqual(['../../base']);
      for (const component of k.components ?? []) {
        expect(existsSync(join(ROOT, 'deploy/kubernetes/overlays', overlay, component, 'kustomization.yaml'))).toBe(true);
      }
    }
  });

  it('every component that creates streams reads JETSTREAM_REPLICAS from the ConfigMap; prod asks for 3', () => {
    const pods = manifests
      .flatMap((f) => documents(join(base, f)))
      .filter((d) => /^(api|run-worker|stream-relay|migrate-[\d.]+)$/.test((d as { metadata: { name: string } }).metadata.name))
      .filter((d) => d['kind'] === 'Deployment' || d['kind'] === 'Job') as {
      spec: { template: { spec: { containers: { env: unknown[] }[] } } };
    }[];
    expect(pods.length).toBe(4);
    for (const pod of pods) {
      expect(pod.spec.template.spec.containers[0]!.env).toContainEqual({
        name: 'JETSTREAM_REPLICAS',
        valueFrom: { configMapKeyRef: { name: 'workload-run-service', key: 'jetstream-replicas' } },
      });
    }
    const config = documents(join(base, 'config.yaml'))[0] as { data: Record<string, string> };
    expect(config.data['jetstream-replicas']).toBe('1');
    const prod = documents(join(ROOT, 'deploy/kubernetes/overlays/prod/kustomization.yaml'))[0] as {
      patches: { target: { kind: string }; patch: string }[];
    };
    const patch = prod.patches.find((p) => p.target.kind === 'ConfigMap')?.patch ?? '';
    expect(patch).toContain('{ op: replace, path: /data/jetstream-replicas, value: "3" }');
  });

  it('every workload runs non-root, without privilege escalation, read-only, with limits', () => {
    const pods = manifests
      .flatMap((f) => documents(join(base, f)))
      .filter((d) => d['kind'] === 'Deployment' || d['kind'] === 'Job')
      .map(
        (d) =>
          (d as { spec: { template: { spec: { securityContext: { runAsNonRoot: boolean }; containers: Record<string, unknown>[] } } } })
            .spec.template.spec,
      );
    expect(pods.length).toBe(4);
    for (const pod of pods) {
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      for (const c of pod.containers) {
        expect(c['securityContext']).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
        expect((c['resources'] as { limits: { memory: string } }).limits.memory).toBeTruthy();
      }
    }
  });

  it('probes and scraping use the operator port, which no routed Service or Ingress exposes (only the headless one the ServiceMonitor scrapes)', () => {
    const deployments = manifests.flatMap((f) => documents(join(base, f))).filter((d) => d['kind'] === 'Deployment') as {
      spec: { template: { metadata: { annotations: Record<string, string> }; spec: { containers: Record<string, unknown>[] } } };
    }[];
    expect(deployments.length).toBe(3);
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0] as {
        ports: { name: string; containerPort: number }[];
        readinessProbe: { httpGet: { path: string; port: string } };
        livenessProbe: { httpGet: { path: string; port: string } };
        env: { name: string; value?: string }[];
      };
      expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 9464 });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'metrics' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'metrics' });
      expect(container.env).toContainEqual({ name: 'METRICS_PORT', value: '9464' });
      expect(deployment.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464' });
    }
    const services = manifests.flatMap((f) => documents(join(base, f))).filter((d) => d['kind'] === 'Service') as {
      spec: { ports: { targetPort: string }[] };
    }[];
    expect(services.flatMap((s) => s.spec.ports.map((p) => p.targetPort))).not.toContain('metrics');
  });

  it('the ingress sends the event stream to the relay with buffering off, the rest and the console to the api', () => {
    const ingress = documents(join(base, 'ingress.yaml'))[0] as {
      metadata: { annotations: Record<string, string> };
      spec: { rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] };
    };
    expect(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    const paths = ingress.spec.rules[0]!.http.paths.map((p) => [p.path, p.backend.service.name]);
    expect(paths).toEqual([
      ['/api/v1/runs/[^/]+/events', 'stream-relay'],
      ['/api/v1', 'api'],
      ['/console', 'api'],
    ]);
  });

  it('the ingress matches the events path as a regex, limits bodies as the api does, and sends its own errors to the api for a problem', () => {
    const ingress = documents(join(base, 'ingress.yaml'))[0] as { metadata: { annotations: Record<string, string> } };
    const annotations = ingress.metadata.annotations;
    // Without use-regex ingress-nginx takes the events path literally: every stream went to the api.
    expect(annotations['nginx.ingress.kubernetes.io/use-regex']).toBe('true');
    expect(nginxSize(annotations['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '1m')).toBe(MAX_BODY_BYTES);
    expect(annotations['nginx.ingress.kubernetes.io/custom-http-errors']?.split(',')).toEqual(
      expect.arrayContaining(['413', '502', '503', '504']),
    );
    expect(annotations['nginx.ingress.kubernetes.io/default-backend']).toBe('api');
  });

  it('the HTTPRoute is the primary route: events by RegularExpression to the relay without a total timeout, the rest to the api', () => {
    const [route, ...more] = documents(join(base, 'http-route.yaml')) as {
      apiVersion: string;
      kind: string;
      spec: {
        parentRefs: { name: string }[];
        rules: {
          matches: { path: { type: string; value: string } }[];
          backendRefs: { name: string; port: number }[];
          timeouts?: { request?: string };
        }[];
      };
    }[];
    expect(more).toEqual([]);
    expect([route?.apiVersion, route?.kind]).toEqual(['gateway.networking.k8s.io/v1', 'HTTPRoute']);
    expect(route?.spec.parentRefs.length).toBe(1);
    const rules = route?.spec.rules ?? [];
    const events = rules[0]!;
    expect(events.matches.map((m) => m.path)).toEqual([{ type: 'RegularExpression', value: '^/api/v1/runs/[^/]+/events/?$' }]);
    expect(events.backendRefs).toEqual([{ name: 'stream-relay', port: 80 }]);
    expect(events.timeouts?.request).toBe('0s');
    const pattern = new RegExp(events.matches[0]!.path.value);
    expect(['/api/v1/runs/r-1/events', '/api/v1/runs/r-1/events/'].every((p) => pattern.test(p))).toBe(true);
    expect(['/api/v1/runs/r-1', '/api/v1/runs/r/events/x', '/api/v1/runs'].some((p) => pattern.test(p))).toBe(false);
    expect(rules[1]!.matches.map((m) => m.path)).toEqual([
      { type: 'PathPrefix', value: '/api/v1' },
      { type: 'PathPrefix', value: '/console' },
    ]);
    expect(rules[1]!.backendRefs).toEqual([{ name: 'api', port: 80 }]);
    // Both Services exist with that port.
    const services = manifests.flatMap((f) => documents(join(base, f))).filter((d) => d['kind'] === 'Service') as {
      metadata: { name: string };
      spec: { ports: { port: number }[] };
    }[];
    for (const name of ['api', 'stream-relay']) {
      expect(services.find((s) => s.metadata.name === name)?.spec.ports.map((p) => p.port)).toContain(80);
    }
  });

  it("the api and the relays admit the route's proxies: Envoy Gateway's (the HTTPRoute), ingress-nginx's, and a namespace labelled for it", () => {
    interface Peer {
      namespaceSelector?: { matchLabels?: Record<string, string> };
    }
    const policies = documents(join(base, 'network-policy.yaml')) as {
      kind: string;
      spec: {
        podSelector: { matchExpressions?: { key: string; values: string[] }[] };
        ingress: { from: Peer[]; ports: { port: number }[] }[];
      };
    }[];
    const admits = (app: string, namespaceLabels: Record<string, string>): boolean =>
      policies
        .filter((p) => p.kind === 'NetworkPolicy')
        .filter((p) => p.spec.podSelector.matchExpressions?.some((e) => e.key === 'app.kubernetes.io/name' && e.values.includes(app)))
        .some((p) =>
          p.spec.ingress.some(
            (rule) =>
              rule.ports.some((port) => port.port === 8080) &&
              rule.from.some((peer) =>
                Object.entries(peer.namespaceSelector?.matchLabels ?? { never: 'matched' }).every(([k, v]) => namespaceLabels[k] === v),
              ),
          ),
        );
    const named = (name: string): Record<string, string> => ({ 'kubernetes.io/metadata.name': name });
    for (const app of ['api', 'stream-relay']) {
      expect(admits(app, named('envoy-gateway-system'))).toBe(true);
      expect(admits(app, named('ingress-nginx'))).toBe(true);
      expect(admits(app, { ...named('istio-ingress'), 'workload-run-service.io/ingress': 'true' })).toBe(true);
      expect(admits(app, named('default'))).toBe(false);
    }
  });

  it("gives the api and the relay the identity provider's issuer and audience and the proxies they trust, from the ConfigMap", () => {
    const config = documents(join(base, 'config.yaml'))[0] as { data: Record<string, string> };
    for (const file of ['api.yaml', 'stream-relay.yaml']) {
      const deployment = documents(join(base, file)).find((d) => d['kind'] === 'Deployment') as {
        spec: { template: { spec: { containers: { env: { name: string; valueFrom?: { configMapKeyRef?: { key: string } } }[] }[] } } };
      };
      const env = deployment.spec.template.spec.containers[0]!.env;
      for (const [name, key] of [
        ['AUTH_ISSUER', 'auth-issuer'],
        ['AUTH_AUDIENCE', 'auth-audience'],
        ['TRUSTED_PROXIES', 'trusted-proxies'],
      ] as const) {
        expect({ file, name, key: env.find((e) => e.name === name)?.valueFrom?.configMapKeyRef?.key }).toEqual({ file, name, key });
        expect(config.data[key]).toBeTruthy();
      }
    }
    // Keycloak's iss is its realm's URL: the realm whose keys auth-jwks-url names.
    expect(config.data['auth-jwks-url']!.startsWith(`${config.data['auth-issuer']}/`)).toBe(true);
  });

  // Without kubectl: a visible skip, and a failure in CI (the files themselves are checked above).
  itNeeding(executableMissing('/usr/bin/kubectl', 'apt-get install kubectl, or put kubectl at /usr/bin'))(
    'kubectl kustomize renders the base with the HTTPRoute and the Ingress',
    async () => {
      const rendered = await renderKustomize(base);
      const kinds = parseAllDocuments(rendered).map((d) => (d.toJSON() as { kind: string }).kind);
      expect(kinds).toEqual(expect.arrayContaining(['HTTPRoute', 'Ingress']));
    },
  );

  it('compose builds only targets the Dockerfile has, and every service of the stack', () => {
    const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');
    const targets = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    const compose = documents(join(ROOT, 'docker/compose.yaml'))[0] as { services: Record<string, { build?: { target: string } }> };
    const built = Object.values(compose.services).flatMap((s) => (s.build ? [s.build.target] : []));
    for (const target of built) {
      expect(targets).toContain(target);
    }
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'gateway', 'keys', 'migrate', 'nats', 'postgres', 'redis', 'run-worker', 'stream-relay'].sort(),
    );
    expect(dockerfile).toMatch(/^USER node$/m);
    expect((dockerfile.match(/^HEALTHCHECK /gm) ?? []).length).toBeGreaterThanOrEqual(4);
  });
});
