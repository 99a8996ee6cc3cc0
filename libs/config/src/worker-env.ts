import { BlockList, isIP } from 'node:net';
import { IsIn, IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { CommonEnv } from './env-schemas';
import { IntBetween } from './env-values';

/** The run-worker's pooled Postgres connections besides its webhook senders': dispatch, the projection and the reconciler. */
export const WORKER_CONNECTIONS_BESIDE_SENDERS = 6;

/**
 * The run-worker's pool: each webhook sender holds a connection for a whole attempt (up to
 * WEBHOOK_TIMEOUT_MS), so the pool grows with them and slow endpoints never leave the rest waiting.
 */
export function workerDatabasePoolSize(webhookSenders: number): number {
  return WORKER_CONNECTIONS_BESIDE_SENDERS + webhookSenders;
}

/** One range of KUBERNETES_ALLOWED_PRIVATE_RANGES. */
export interface AddressRange {
  readonly network: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/**
 * KUBERNETES_ALLOWED_PRIVATE_RANGES as ranges: comma-separated CIDRs, a bare address meaning itself
 * alone (`10.20.0.0/16,10.30.1.5,fd00:1::/64`); undefined when an entry is neither.
 */
export function addressRangesOf(setting: string): AddressRange[] | undefined {
  const entries = setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const ranges = entries.map(addressRangeOf);
  return ranges.every((range): range is AddressRange => range !== undefined) ? ranges : undefined;
}

function addressRangeOf(entry: string): AddressRange | undefined {
  const [network = '', prefix, ...rest] = entry.split('/');
  const version = isIP(network);
  if (version === 0 || rest.length > 0) {
    return undefined;
  }
  const bits = version === 4 ? 32 : 128;
  const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(length <= bits)) {
    return undefined;
  }
  return version === 4 ? { network, prefix: length, family: 'ipv4' } : ipv6RangeOf(network, length);
}

/**
 * An IPv6 range, where an IPv4 address is judged against IPv6 ranges through its mapped form
 * (`::ffff:a.b.c.d`): a mapped range is its IPv4 range, and a shorter one that holds every mapped
 * address (`::/64`, `::ffff:10.0.0.0/8`) would allow all of IPv4, loopback and metadata included.
 */
function ipv6RangeOf(network: string, prefix: number): AddressRange | undefined {
  if (network.includes('%')) {
    return undefined; // a zone (`fe80::1%eth0`) names an interface, not a range
  }
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(new URL(`http://[${network}]`).hostname);
  if (mapped && prefix > 96) {
    const value = (parseInt(mapped[1]!, 16) << 16) | parseInt(mapped[2]!, 16);
    const ipv4 = [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
    return { network: ipv4, prefix: prefix - 96, family: 'ipv4' };
  }
  const range = new BlockList();
  range.addSubnet(network, prefix, 'ipv6');
  return range.check('::ffff:0:0', 'ipv6') ? undefined : { network, prefix, family: 'ipv6' };
}

/** Variables of the run-worker: its providers, credentials and the pace of its reconciler. */
export class WorkerEnv extends CommonEnv {
  /** The Docker Engine API socket (Docker or Podman) of the `container` provider; unset: no such provider. */
  @IsOptional()
  @IsString()
  CONTAINER_ENGINE_SOCKET?: string;

  /** A provider silent (erroring) about a run for this long fails the run: never `running` forever. */
  @IntBetween(1, 86400)
  PROVIDER_UNRESPONSIVE_SECONDS = 300;

  /** How often providers with a global health endpoint (container: the engine's /_ping) are probed. */
  @IntBetween(100, 600000)
  PROVIDER_PROBE_INTERVAL_MS = 10000;

  /** Fault injection for tests: the name of a crash site. Never set in production. */
  @IsOptional()
  @Matches(/^[a-z.-]*$/, { message: 'FAILPOINT must be a crash-site name' })
  FAILPOINT?: string;

  /** Private key-encryption keys, `id:file.pem,...`: the only place provider credentials can be opened. */
  @IsOptional()
  @IsString()
  CREDENTIALS_KEK_PRIVATE_KEYS?: string;

  @IsOptional()
  @IsString()
  PROVIDERS_JSON?: string;

  @IntBetween(10, 60000)
  RECONCILE_INTERVAL_MS = 200;

  /**
   * The longest a starting or running run goes unobserved while nothing changes: the gap between looks
   * doubles from RECONCILE_INTERVAL_MS up to this. A provider that reports changes itself (the container
   * engine's events) wakes a run sooner; one that does not (Kubernetes) is late by at most this much.
   */
  @IntBetween(10, 600000)
  RECONCILE_MAX_INTERVAL_MS = 5000;

  /**
   * How long a command or event delivered to a worker may stay unacknowledged before JetStream gives it
   * to another: what a worker that died mid-message costs. It counts from delivery, so it covers the
   * time a message waits in the worker's queue (up to about 500 of them) as well as its handling.
   */
  @IntBetween(5000, 600000)
  JETSTREAM_ACK_WAIT_MS = 30000;

  /** How often each provider's workloads are compared with the runs (stray ones stopped and removed). */
  @IntBetween(100, 3600000)
  WORKLOAD_CLEANUP_INTERVAL_MS = 30000;

  /** A workload whose run is not projected is kept this long after its creation (then removed if no event names its run). */
  @IntBetween(1, 86400)
  WORKLOAD_ORPHAN_GRACE_SECONDS = 120;

  /** Webhook targets in loopback, link-local and private ranges are refused unless this is `true` (SSRF). */
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';

  /**
   * The private ranges where workspaces' Kubernetes API servers may be (a cluster on the operator's own
   * network). Any other loopback, link-local or private address a credential leads to is refused (SSRF).
   */
  @IsOptional()
  @ValidateBy({
    name: 'isAddressRanges',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && addressRangesOf(value) !== undefined,
      defaultMessage: () => 'KUBERNETES_ALLOWED_PRIVATE_RANGES must be CIDRs or addresses, comma-separated (e.g. 10.20.0.0/16,fd00:1::/64)',
    },
  })
  KUBERNETES_ALLOWED_PRIVATE_RANGES?: string;

  /** One delivery attempt, connection to answer, at most this long. */
  @IntBetween(100, 60000)
  WEBHOOK_TIMEOUT_MS = 10000;

  /** The most of an endpoint's answer that is read. */
  @IntBetween(0, 1048576)
  WEBHOOK_MAX_RESPONSE_BYTES = 65536;

  /** Retries: the first wait, the longest wait, and the attempts in all (default: about 11 hours). */
  @IntBetween(10, 3600000)
  WEBHOOK_RETRY_BASE_MS = 10000;

  @IntBetween(10, 86400000)
  WEBHOOK_RETRY_MAX_DELAY_MS = 7200000;

  @IntBetween(1, 100)
  WEBHOOK_MAX_ATTEMPTS = 15;

  /** Deliveries one worker process sends at once; each has a database connection of its own (workerDatabasePoolSize). */
  @IntBetween(1, 32)
  WEBHOOK_SENDERS = 4;
}
