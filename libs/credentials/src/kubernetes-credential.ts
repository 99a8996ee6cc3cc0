/**
 * What a workspace stores (POST /provider-credentials, `secret`) for a provider of kind `kubernetes`:
 * a JSON object naming the cluster and how to reach it as the workspace's own service account.
 *
 *   {"server": "https://api.cluster.example:6443", "token": "<bearer token>",
 *    "caCertificate": "-----BEGIN CERTIFICATE-----\n...", "namespace": "team-runs"}
 *
 * `caCertificate` (PEM) may be omitted when the server's certificate chains to a public CA.
 */
export interface KubernetesCredential {
  readonly server: string;
  readonly token: string;
  readonly caCertificate?: string;
  readonly namespace: string;
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export type KubernetesCredentialParse =
  { readonly ok: true; readonly credential: KubernetesCredential } | { readonly ok: false; readonly problem: string };

/**
 * Parses a secret: the api checks it when it is stored, the worker when it opens it. A problem names
 * the bad field, never its value (the token is in there). The server's address is not judged here: the
 * worker judges each address it connects to against its own KUBERNETES_ALLOWED_PRIVATE_RANGES, which
 * the api does not know.
 */
export function parseKubernetesCredential(secret: string): KubernetesCredentialParse {
  let value: unknown;
  try {
    value = JSON.parse(secret);
  } catch {
    return invalid('it is not a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('it is not a JSON object');
  }
  const v = value as Record<string, unknown>;
  const server = v['server'];
  if (typeof server !== 'string' || !isHttpsUrl(server)) {
    return invalid('"server" must be an https:// URL without credentials or query');
  }
  if (typeof v['token'] !== 'string' || v['token'].length === 0) {
    return invalid('"token" must be a non-empty string');
  }
  const ca = v['caCertificate'];
  if (ca !== undefined && (typeof ca !== 'string' || !ca.includes('-----BEGIN CERTIFICATE-----'))) {
    return invalid('"caCertificate" must be a PEM certificate');
  }
  if (typeof v['namespace'] !== 'string' || !NAMESPACE.test(v['namespace'])) {
    return invalid('"namespace" must be a Kubernetes namespace name');
  }
  const credential = { server, token: v['token'], namespace: v['namespace'], ...(typeof ca === 'string' ? { caCertificate: ca } : {}) };
  return { ok: true, credential };
}

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.username === '' && url.password === '' && url.search === '';
  } catch {
    return false;
  }
}

function invalid(problem: string): KubernetesCredentialParse {
  return { ok: false, problem };
}
