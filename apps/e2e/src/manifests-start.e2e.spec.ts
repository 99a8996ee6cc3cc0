import { createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { SigningKey } from '@wrs/auth';
import { StreamNames } from '@wrs/messaging';
import {
  apiFetch,
  describeNeeding,
  executableMissing,
  isolatedEnvironment,
  patience,
  testSigningKey,
  TEST_ISSUER,
  testToken,
  type IsolatedEnvironment,
} from '@wrs/testing';
import { ContainerConfigError, objectData, type ObjectData } from './kubelet/container-env';
import { workloadsOf, type K8sObject, type Workload } from './kubelet/manifest-types';
import { testOperatorSecrets } from './kubelet/operator-secrets';
import { NATS_SERVER, startNatsCluster, type NatsCluster } from './kubelet/nats-cluster';
import { KUBECTL, OVERLAYS, renderOverlay } from './kubelet/render';
import { startContainer, type StartedContainer, type Substitutions } from './kubelet/start-container';

/*
 * Each overlay's Deployments and migrate Job, started from the built dist/ as their images would be,
 * with exactly the env, files and arguments the rendered manifests give them. There is no Kubernetes
 * API server or kubelet here: the test stands in for the kubelet only as far as env, files and args
 * (no scheduling, network namespaces, security contexts or image pulls). What it changes, and why:
 * in-cluster addresses point at the local NATS/Postgres/Redis and a local JWKS; mount paths live under
 * a temporary directory (env paths into them rewritten alike); container ports map to free ports;
 * NAMESPACE and DATABASE_SCHEMA give each test its own streams and schema; and an overlay asking for
 * more than one copy of each stream (prod: 3) gets a local JetStream cluster of that many servers.
 */
const missing =
  executableMissing(KUBECTL, 'apt-get install kubectl, or put kubectl at /usr/bin') ??
  executableMissing(NATS_SERVER, 'apt-get install nats-server');

describeNeeding(missing)('the rendered manifests start', () => {
  let env: IsolatedEnvironment;
  let jwks: Server;
  let jwksUrl: string;
  let signing: SigningKey;
  const started: StartedContainer[] = [];
  const clusters: NatsCluster[] = [];

  beforeEach(async () => {
    env = await isolatedEnvironment();
  });

  beforeAll(async () => {
    const { key } = testSigningKey();
    signing = key;
    const jwk = { ...createPublicKey(key.privateKey).export({ format: 'jwk' }), kid: key.kid, alg: 'EdDSA', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`;
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((c) => c.stop()));
    await Promise.all(clusters.splice(0).map((c) => c.stop()));
    await env.cleanup();
  });

  afterAll(() => {
    jwks?.closeAllConnections();
    jwks?.close();
  });

  function substitutions(objects: readonly K8sObject[], natsUrl = env.natsUrl): Substitutions {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'workload-run-service')?.data ?? {};
    return {
      addresses: {
        'nats://nats:4222': natsUrl,
        'redis://redis:6379': env.redisUrl,
        ...(config['auth-jwks-url'] ? { [config['auth-jwks-url']]: jwksUrl } : {}),
      },
      isolation: { NAMESPACE: env.namespace, DATABASE_SCHEMA: env.schema },
      root: mkdtempSync(join(tmpdir(), 'wrs-pod-')),
    };
  }

  async function start(workload: Workload, data: ObjectData, subs: Substitutions): Promise<StartedContainer> {
    const container = await startContainer(workload, data, subs);
    started.push(container);
    return container;
  }

  it.each(OVERLAYS)('%s: the migrate Job completes, then every Deployment answers its readiness probe', async (overlay) => {
    const objects = await renderOverlay(overlay);
    const data = objectData(objects, testOperatorSecrets(env.databaseUrl));
    // The copies each stream gets (JETSTREAM_REPLICAS): a single server refuses more than one.
    const replicas = Number(data.configMaps.get('workload-run-service')?.['jetstream-replicas'] ?? '1');
    const cluster = replicas > 1 ? await startNatsCluster(replicas, patience(30_000)) : undefined;
    clusters.push(...(cluster ? [cluster] : []));
    const subs = substitutions(objects, cluster?.url);
    const workloads = workloadsOf(objects);
    const jobs = workloads.filter((w) => w.kind === 'Job');
    expect(jobs.map((j) => j.name)).toEqual([expect.stringMatching(/^migrate-/)]);
    await (
      await start(jobs[0]!, data, subs)
    ).exited;
    const nc = await connect({ servers: cluster?.url ?? env.natsUrl });
    const events = await (await jetstreamManager(nc)).streams.info(new StreamNames(env.namespace).eventsStream);
    await nc.close();
    expect(events.config.num_replicas).toBe(replicas);
    const deployments = workloads.filter((w) => w.kind === 'Deployment');
    expect(deployments.map((d) => d.name).sort()).toEqual(['api', 'run-worker', 'stream-relay']);
    const containers = await Promise.all(deployments.map((d) => start(d, data, subs)));
    await Promise.all(containers.map((c) => c.ready(patience(30_000))));
    // A token as the identity provider the ConfigMap names would issue it (its iss and aud) is taken
    // by the api and the relay: the workspace is unknown (404), not the token refused (401).
    const config = data.configMaps.get('workload-run-service')!;
    // The identity provider's, not the development default a token of the test signer would carry.
    expect(config['auth-issuer']).toEqual(expect.stringMatching(/^https:\/\//));
    expect(config['auth-issuer']).not.toBe(TEST_ISSUER);
    const fromIdp = testToken(signing, 'ws-from-idp', { issuer: config['auth-issuer'], audience: config['auth-audience'] });
    const fromDev = testToken(signing, 'ws-from-idp');
    for (const name of ['api', 'stream-relay']) {
      const port = containers[deployments.findIndex((d) => d.name === name)]!.env['PORT'];
      const url = `http://127.0.0.1:${port}/api/v1/${name === 'api' ? 'workspaces/current' : `runs/${randomUUID()}/events`}`;
      const ask = async (token: string): Promise<[string, number, string]> => {
        const answer = await apiFetch(url, {
          headers: {
            authorization: `Bearer ${token}`,
            'x-service-workspace-id': 'ws-from-idp',
            accept: name === 'api' ? 'application/json' : 'text/event-stream',
          },
        });
        return [name, answer.status, ((await answer.json()) as { code: string }).code];
      };
      expect(await ask(fromIdp)).toEqual([name, 404, name === 'api' ? 'workspace_not_found' : 'run_not_found']);
      expect(await ask(fromDev)).toEqual([name, 401, 'token_claims_invalid']);
    }
  });

  it('a run-worker without its KEK volume does not start: the manifest test would catch a missing volume', async () => {
    const objects = await renderOverlay('dev');
    const data = objectData(objects, testOperatorSecrets(env.databaseUrl));
    // Migrated first, so that the KEK is the only thing the worker lacks.
    await (
      await start(
        workloadsOf(objects).find((w) => w.kind === 'Job')!,
        data,
        substitutions(objects),
      )
    ).exited;
    const worker = workloadsOf(objects).find((w) => w.name === 'run-worker')!;
    const container = worker.pod.containers[0]!;
    const withoutKek: Workload = {
      ...worker,
      pod: {
        ...worker.pod,
        volumes: (worker.pod.volumes ?? []).filter((v) => v.name !== 'kek'),
        containers: [{ ...container, volumeMounts: (container.volumeMounts ?? []).filter((m) => m.name !== 'kek') }],
      },
    };
    const started = await start(withoutKek, data, substitutions(objects));
    await expect(started.ready(patience(30_000))).rejects.toThrow(/CREDENTIALS_KEK_PRIVATE_KEYS: cannot read the private key k1/);
  });

  it('a Secret key the manifest needs and the operator did not create stops the container before it starts', async () => {
    const objects = await renderOverlay('dev');
    const secrets = testOperatorSecrets(env.databaseUrl);
    const data = objectData(objects, { ...secrets, 'workload-run-service': {} });
    const api = workloadsOf(objects).find((w) => w.name === 'api')!;
    await expect(startContainer(api, data, substitutions(objects))).rejects.toThrow(ContainerConfigError);
  });
});
