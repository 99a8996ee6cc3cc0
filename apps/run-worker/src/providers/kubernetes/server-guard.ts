import type { Agent } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { addressRangesOf } from '@wrs/config';
import type { KubernetesCredential } from '@wrs/credentials';
import { GuardedAgent, isPrivateAddress } from '../../net/address-guard';

/** The code of a refused API server address; the HTTP client keeps it on the error it fails with. */
export const SERVER_REFUSED = 'KUBERNETES_SERVER_REFUSED';

/** All a tenant is told: naming the address or its range would help map the operator's network. */
export const TARGET_NOT_ALLOWED = 'target not allowed';

export class ServerRefusedError extends Error {
  readonly code = SERVER_REFUSED;
  constructor() {
    super(TARGET_NOT_ALLOWED);
    this.name = 'ServerRefusedError';
  }
}

/**
 * Where workspaces' API servers may be: any public address, and the private ranges the operator names
 * in KUBERNETES_ALLOWED_PRIVATE_RANGES (none by default: a stored credential must not turn the worker
 * into a scanner of its own network).
 */
export class ServerAddresses {
  static readonly PUBLIC_ONLY = new ServerAddresses('');
  private readonly allowed = new BlockList();

  constructor(allowedPrivateRanges: string) {
    const ranges = addressRangesOf(allowedPrivateRanges);
    if (!ranges) {
      throw new Error('KUBERNETES_ALLOWED_PRIVATE_RANGES must be CIDRs or addresses, comma-separated');
    }
    ranges.forEach((range) => this.allowed.addSubnet(range.network, range.prefix, range.family));
  }

  /** An arrow, so the agent can hold it on its own. */
  readonly permits = (address: string): boolean => {
    if (!isPrivateAddress(address)) {
      return true;
    }
    const family = isIP(address);
    return family !== 0 && this.allowed.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/** The agent every call to a workspace's cluster goes through: only the credential's CA, only permitted addresses. */
export function serverAgent(credential: KubernetesCredential, addresses: ServerAddresses): Agent {
  const tls = credential.caCertificate ? { ca: credential.caCertificate } : {};
  return new GuardedAgent(tls, addresses.permits, () => new ServerRefusedError());
}

/** Lookup failures of a name: told apart from a refusal, they would say which internal names exist. */
const NAME_NOT_FOUND = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'EAI_NODATA', 'EAI_NONAME']);

/** A server refused, or a name that did not resolve: both are told as TARGET_NOT_ALLOWED. */
export function serverRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === SERVER_REFUSED || (typeof code === 'string' && NAME_NOT_FOUND.has(code));
}
