import type { Agent } from 'node:https';
import type { BatchV1Api, CoreV1Api, SecurityAuthentication } from '@kubernetes/client-node';
import type { KubernetesCredential } from '@wrs/credentials';
import { SERVER_REFUSED, ServerAddresses, serverAgent, serverRefused, TARGET_NOT_ALLOWED } from './server-guard';

/** The two API groups the provider uses, bound to one workspace's cluster, identity and namespace. */
export interface KubernetesApis {
  readonly batch: BatchV1Api;
  readonly core: CoreV1Api;
  readonly namespace: string;
}

type ClientModule = typeof import('@kubernetes/client-node');
let clientModule: Promise<ClientModule> | undefined;

/**
 * The client is loaded on first use, not at start: it is a large module graph (seconds to load on a
 * busy machine), and a worker without a kubernetes provider, or before its first kubernetes run,
 * should not pay for it.
 */
function loadClient(): Promise<ClientModule> {
  clientModule ??= import('@kubernetes/client-node');
  return clientModule;
}

/**
 * Clients for the workspace's cluster. Every connection goes through the guarded agent, so the address
 * the credential leads to is checked when the socket is made (a name on each resolution: no rebinding).
 */
export async function kubernetesApis(
  credential: KubernetesCredential,
  addresses: ServerAddresses = ServerAddresses.PUBLIC_ONLY,
): Promise<KubernetesApis> {
  const { BatchV1Api, CoreV1Api, createConfiguration, ServerConfiguration } = await loadClient();
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(credential.server, {}),
    authMethods: { default: workspaceIdentity(credential.token, serverAgent(credential, addresses)) },
  });
  return { batch: new BatchV1Api(configuration), core: new CoreV1Api(configuration), namespace: credential.namespace };
}

/** The service account's token and the agent on every request (what a KubeConfig would set, with an agent of our own). */
function workspaceIdentity(token: string, agent: Agent): SecurityAuthentication {
  return {
    getName: () => 'workspace',
    applySecurityAuthentication: (context) => {
      context.setHeaderParam('Authorization', `Bearer ${token}`);
      context.setAgent(agent);
    },
  };
}

/**
 * Lets a Job made suspended make its pod: a merge patch (the client would send a JSON Patch unless
 * told). The uid in the patch is a precondition: the server refuses it for another Job of that name.
 */
export async function resumeJob(apis: KubernetesApis, name: string, uid: string): Promise<unknown> {
  const { PatchStrategy, setHeaderOptions } = await loadClient();
  return apis.batch.patchNamespacedJob(
    { name, namespace: apis.namespace, body: { metadata: { uid }, spec: { suspend: false } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/**
 * The HTTP status of a refusal by the API server (the client's ApiException carries it as a numeric
 * `code`), or undefined when the server was not reached (transport errors have string codes).
 */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'number' ? code : undefined;
}

/** Transport errors that happen before a request is sent: the server cannot have acted on it. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  SERVER_REFUSED,
]);

/**
 * Whether a failed create certainly created nothing: the server refused it (4xx but 408 and 429) or was
 * never reached. A time-out, a reset connection or a 5xx may come after the server acted, so the caller
 * must not place the run elsewhere (it would run twice); it retries, and the retry meets 409.
 */
export function certainlyNotCreated(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) {
    // 408 and 429 (the server timed out or throttled the request) say nothing certain either.
    return status < 500 && status !== 408 && status !== 429;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_SENT.has(code);
}

/**
 * A short description of a failed call that is safe to record on a run: the status and the
 * server's Status reason, or the transport error's code. Never the request (its headers hold the token).
 */
export function describeFailure(error: unknown): string {
  if (serverRefused(error)) {
    return TARGET_NOT_ALLOWED;
  }
  const status = statusOf(error);
  if (status !== undefined) {
    const body: unknown = (error as { body?: unknown }).body;
    const reason = typeof body === 'object' && body !== null ? (body as { reason?: unknown }).reason : undefined;
    return `HTTP ${status}${typeof reason === 'string' ? ` ${reason}` : ''}`;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

/** Gives up waiting on a call that hangs (the client has no deadline of its own), so a sweep never stalls. */
export async function within<T>(ms: number, what: string, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`the Kubernetes API did not answer ${what} within ${ms} ms`), { code: 'ETIMEDOUT' })),
      ms,
    );
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
