import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

/** kind -> the kubernetes-models class that validates it against the Kubernetes JSON schema. */
function modelFor(apiVersion: string, kind: string): { new (data: unknown): { validate(): void } } {
  const group = apiVersion.includes('/') ? apiVersion : `v1`;
  const path = group === 'v1' ? `v1/${kind}` : `${group}/${kind}`;
  const module = require(`kubernetes-models/${path}`) as Record<string, { new (data: unknown): { validate(): void } }>;
  const model = module[kind];
  if (!model) {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  }
  return model;
}

function documents(file: string): Record<string, unknown>[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJSON() as Record<string, unknown>).filter(Boolean);
}

describe('deployment files', () => {
  const base = join(ROOT, 'deploy/kubernetes/base');
  const manifests = readdirSync(base).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');

  it.each(manifests)('%s is valid against the Kubernetes schemas', (file) => {
    for (const doc of documents(join(base, file))) {
      const Model = modelFor(doc['apiVersion'] as string, doc['kind'] as string);
      expect(() => new Model(doc).validate()).not.toThrow();
    }
  });

  it('the kustomizations name every base file and only files that exist', () => {
    const kustomization = documents(join(base, 'kustomization.yaml'))[0] as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual([...manifests].sort());
    for (const overlay of ['dev', 'prod']) {
      const k = documents(join(ROOT, 'deploy/kubernetes/overlays', overlay, 'kustomization.yaml'))[0] as { resources: string[] };
      expect(k.resources).toEqual(['../../base']);
    }
  });

  it('every workload runs non-root, without privilege escalation, read-only, with limits', () => {
    const pods = manifests
      .flatMap((f) => documents(join(base, f)))
      .filter((d) => d['kind'] === 'Deployment' || d['kind'] === 'Job')
      .map((d) => (d as { spec: { template: { spec: { securityContext: { runAsNonRoot: boolean }; containers: Record<string, unknown>[] } } } }).spec.template.spec);
    expect(pods.length).toBe(4);
    for (const pod of pods) {
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      for (const c of pod.containers) {
        expect(c['securityContext']).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
        expect((c['resources'] as { limits: { memory: string } }).limits.memory).toBeTruthy();
      }
    }
  });

  it('the ingress sends the event stream to the relay with buffering off, the rest to the api', () => {
    const ingress = documents(join(base, 'ingress.yaml'))[0] as {
      metadata: { annotations: Record<string, string> };
      spec: { rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[] };
    };
    expect(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    const paths = ingress.spec.rules[0]!.http.paths.map((p) => [p.path, p.backend.service.name]);
    expect(paths).toEqual([['/api/v1/runs/[^/]+/events', 'stream-relay'], ['/api/v1', 'api']]);
  });

  it('compose builds only targets the Dockerfile has, and every service of the stack', () => {
    const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');
    const targets = [...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gm)].map((m) => m[1]);
    const compose = documents(join(ROOT, 'docker/compose.yaml'))[0] as { services: Record<string, { build?: { target: string } }> };
    const built = Object.values(compose.services).flatMap((s) => (s.build ? [s.build.target] : []));
    for (const target of built) {
      expect(targets).toContain(target);
    }
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api', 'gateway', 'migrate', 'nats', 'postgres', 'redis', 'run-worker', 'stream-relay'].sort(),
    );
    expect(dockerfile).toMatch(/^USER node$/m);
    expect((dockerfile.match(/^HEALTHCHECK /gm) ?? []).length).toBeGreaterThanOrEqual(4);
  });
});
