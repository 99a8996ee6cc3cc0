import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { startFakeKubernetes, type FakeKubernetes } from '@wrs/testing';
import { ProviderError } from '../provider';
import { makeSuspended } from './job-start';
import { kubernetesApis, within } from './kubernetes-api';
import { kubernetesRunOf } from './kubernetes-runs.testing';
import { SERVER_REFUSED, ServerAddresses } from './server-guard';

// A workspace's stored credential names the server the worker connects to. Unless the operator allows
// its range, a private address, written or resolved, gets no connection: else a tenant could scan the
// worker's network and read the answers back in its runs' failures.
const NAMESPACE = 'team-runs';
const TOKEN = `test-${randomBytes(16).toString('hex')}`;

describe('the Kubernetes client connects only where the operator allows', () => {
  let fake: FakeKubernetes;
  /** Counts the connections it gets: a refused target must get none (not even one closed at once). */
  let scanned: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    fake = await startFakeKubernetes({ token: TOKEN, namespaces: [NAMESPACE] });
    scanned = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => scanned.listen(0, '127.0.0.1', resolve));
    port = (scanned.address() as AddressInfo).port;
  });
  beforeEach(() => {
    connections = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => scanned.close(resolve));
    await fake.stop();
  });

  const credential = (server: string) => ({ server, token: TOKEN, caCertificate: fake.caCertificate, namespace: NAMESPACE });
  const listJobs = async (server: string, addresses?: ServerAddresses) => {
    const apis = await kubernetesApis(credential(server), addresses);
    return within(5000, 'list the Jobs', apis.batch.listNamespacedJob({ namespace: NAMESPACE }));
  };

  it('reaches a cluster on a private address in a range the operator allows', async () => {
    await expect(listJobs(fake.server, new ServerAddresses('127.0.0.0/8'))).resolves.toMatchObject({ items: [] });
    expect(fake.requests.at(-1)).toMatchObject({ authorized: true, status: 200 });
  });

  it.each([
    ['a literal private address, by default', () => `https://127.0.0.1:${port}`, undefined],
    ['a name that resolves to a private address (localhost), by default', () => `https://localhost:${port}`, undefined],
    ['an IPv4-mapped private address, by default', () => `https://[::ffff:127.0.0.1]:${port}`, undefined],
    ['a private address outside the allowed ranges', () => `https://127.0.0.1:${port}`, new ServerAddresses('10.0.0.0/8')],
  ])('refuses %s without connecting', async (_, server, addresses) => {
    await expect(listJobs(server(), addresses)).rejects.toMatchObject({ code: SERVER_REFUSED });
    expect(connections).toBe(0);
  });

  it.each([
    ['a refused address', () => `https://127.0.0.1:${port}`],
    ['a name that does not resolve (else its error would tell which internal names exist)', () => 'https://no-such-cluster.invalid'],
  ])('a submit to %s is the provider\'s refusal and says no more than "target not allowed"', async (_, server) => {
    const apis = await kubernetesApis(credential(server()));
    const error = await makeSuspended(apis, kubernetesRunOf(), 'wrs', (what, request) => within(5000, what, request)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_error', message: "the credential's Kubernetes API server: target not allowed" });
    expect(connections).toBe(0);
  });
});
