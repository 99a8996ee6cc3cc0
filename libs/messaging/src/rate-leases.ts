import type { RateDecision, RatePolicy, RateTake } from './rate-limiter';

export type TakeCells = (policies: readonly RatePolicy[], cells: number, giveBack: number) => Promise<RateTake | null>;

export interface RateLeaseSettings {
  /**
   * How long cells taken ahead stay usable. It bounds how long after Redis counted a cell a request can
   * use it, and so how far a lease can let a window hold more than its limit.
   */
  readonly lifetimeMs: number;
  /** The most cells one lease takes. */
  readonly maxCells: number;
  /** A lease takes at most 1/`shareOfRemaining` of what its policies have left, so near a limit each request asks Redis. */
  readonly shareOfRemaining: number;
}

export const DEFAULT_RATE_LEASES: RateLeaseSettings = { lifetimeMs: 200, maxCells: 64, shareOfRemaining: 8 };

interface Lease {
  /** Cells left to hand out, until `until`. */
  cells: number;
  /** Cells the current lease took (0: none, or the last take was refused or failed). */
  size: number;
  until: number;
  /** Redis's answer at the last take; a served request's headers are made from it. */
  decision: RateDecision | null;
  /** A refusal stands until a cell is free again (Redis said when). */
  refusedUntil: number;
  /** How many cells the next take asks for: doubles while leases are spent before they lapse. */
  demand: number;
  renewing: Promise<Renewal> | null;
  waiting: number;
}

type Renewal = { readonly granted: true } | { readonly granted: false; readonly decision: RateDecision | null };

/**
 * Cells of the shared GCRA taken ahead by one process, so that a busy key asks Redis once per lease
 * instead of once per request (the read path's round trip to Redis was about a sixth of its CPU). The
 * limit holds across replicas because every cell is still taken from Redis. A lease starts at one cell
 * and doubles while leases are spent before they lapse; it never takes more than a share of what is
 * left, so a client near its limit is decided cell by cell as before. Cells a lapsed lease did not use
 * are given back with the next take.
 */
export class RateLeases {
  private readonly leases = new Map<string, Lease>();
  private sweepAt = 1024;

  constructor(
    private readonly takeCells: TakeCells,
    private readonly settings: RateLeaseSettings = DEFAULT_RATE_LEASES,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  async admit(policies: readonly RatePolicy[]): Promise<RateDecision | null> {
    const lease = this.leaseFor(policies);
    for (;;) {
      const now = this.clock();
      if (lease.cells > 0 && now < lease.until && lease.decision) {
        lease.cells -= 1;
        return withUnspent(lease.decision, lease.cells);
      }
      if (lease.decision && now < lease.refusedUntil) {
        return { ...lease.decision, allowed: false, retryAfterSeconds: Math.ceil((lease.refusedUntil - now) / 1000) };
      }
      lease.renewing ??= this.renew(lease, policies, now).finally(() => (lease.renewing = null));
      lease.waiting += 1;
      const renewal = await lease.renewing;
      lease.waiting -= 1;
      if (!renewal.granted) {
        return renewal.decision;
      }
      // Granted, but others waiting may have taken every cell: look again (and take again if so).
    }
  }

  private async renew(lease: Lease, policies: readonly RatePolicy[], now: number): Promise<Renewal> {
    const giveBack = lease.cells; // left only in a lapsed lease
    lease.demand = nextDemand(lease, now, this.settings.maxCells);
    const share = Math.max(1, Math.floor(leastRemaining(lease.decision) / this.settings.shareOfRemaining));
    const asked = Math.min(this.settings.maxCells, share, Math.max(lease.demand, lease.waiting + 1));
    lease.cells = 0;
    lease.size = 0;
    const took = await this.takeCells(policies, asked, giveBack);
    if (!took) {
      return { granted: false, decision: null };
    }
    lease.decision = took.decision;
    if (took.cells === 0) {
      lease.refusedUntil = this.clock() + took.waitMs;
      return { granted: false, decision: took.decision };
    }
    lease.cells = took.cells;
    lease.size = took.cells;
    lease.until = this.clock() + this.settings.lifetimeMs;
    return { granted: true };
  }

  private leaseFor(policies: readonly RatePolicy[]): Lease {
    const id = policies.map((p) => `${p.key}\u0000${p.limit}\u0000${p.windowSeconds}`).join('\u0001');
    let lease = this.leases.get(id);
    if (!lease) {
      if (this.leases.size >= this.sweepAt) {
        this.sweep();
      }
      lease = { cells: 0, size: 0, until: 0, decision: null, refusedUntil: 0, demand: 1, renewing: null, waiting: 0 };
      this.leases.set(id, lease);
    }
    return lease;
  }

  /** Forgets the leases nobody uses (their unspent cells lapse in Redis with the window), so short-lived tokens do not pile up. */
  private sweep(): void {
    const now = this.clock();
    for (const [id, lease] of this.leases) {
      if (!lease.renewing && now >= lease.until && now >= lease.refusedUntil) {
        this.leases.delete(id);
      }
    }
    this.sweepAt = Math.max(1024, this.leases.size * 2);
  }
}

/** Doubles after a lease was spent before it lapsed; after a lapse, what the lease served. */
function nextDemand(lease: Lease, now: number, maxCells: number): number {
  if (lease.size === 0) {
    return lease.demand;
  }
  if (lease.cells === 0 && now < lease.until) {
    return Math.min(maxCells, lease.demand * 2);
  }
  return Math.max(1, lease.size - lease.cells);
}

function leastRemaining(decision: RateDecision | null): number {
  return decision ? Math.min(...decision.policies.map((p) => p.remaining)) : 0;
}

/** The cells this lease still holds are this client's too: the headers count them as remaining. */
function withUnspent(decision: RateDecision, unspent: number): RateDecision {
  if (unspent === 0) {
    return decision;
  }
  return { ...decision, policies: decision.policies.map((p) => ({ ...p, remaining: p.remaining + unspent })) };
}
