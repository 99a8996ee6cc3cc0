import type { RateTake, TakeRequest } from './gcra-take';
import type { RateDecision, RatePolicy } from './rate-limiter';

export type TakeCells = (policies: readonly RatePolicy[], request: TakeRequest) => Promise<RateTake | null>;

export interface RateLeaseSettings {
  /**
   * How long cells taken ahead stay usable, from when the take was sent. It bounds how long after Redis
   * counted a cell a request can use it, and how long cells a replica no longer needs are kept from others.
   */
  readonly lifetimeMs: number;
  /** The most cells one lease takes. */
  readonly maxCells: number;
  /** A lease takes at most 1/`shareOfRemaining` of what its tightest policy has free (Redis decides, at the take). */
  readonly shareOfRemaining: number;
}

export const DEFAULT_RATE_LEASES: RateLeaseSettings = { lifetimeMs: 100, maxCells: 64, shareOfRemaining: 8 };

interface Lease {
  /** Cells left to hand out, until `until`; after it, cells to give back. */
  cells: number;
  /** Cells the current lease took (0: none, or the last take was refused or failed). */
  size: number;
  until: number;
  /** Counts the takes that granted cells, so a late give-back or restore never touches a newer lease. */
  generation: number;
  /** Per policy, the TAT after the take that granted this lease's cells: what giving them back is bounded by. */
  ends: readonly number[];
  /** Redis's answer at the last take, and when (this clock) it was asked: the headers are made from them. */
  last: RateTake | null;
  askedAt: number;
  /**
   * A refusal stands for a lifetime at most (cells may come back sooner, given back by another lease);
   * its Retry-After is when Redis said a cell is free.
   */
  refusedUntil: number;
  retryAt: number;
  /** Few cells are free: each request asks Redis for its own, at once, as without leases. */
  tight: boolean;
  /** How many cells the next take asks for: doubles while leases are spent before they lapse. */
  demand: number;
  renewing: Promise<Renewal> | null;
  waiting: number;
}

type Renewal =
  { readonly granted: true; readonly generation: number } | { readonly granted: false; readonly decision: RateDecision | null };

/**
 * Cells of the shared GCRA taken ahead by one process, so that a busy key asks Redis once per lease
 * instead of once per request (the read path's round trip to Redis). Every cell is still taken from
 * Redis, so processes together admit no more than the limit, give or take the cells a lease uses up to
 * its lifetime after Redis counted them. A lease starts at one cell and doubles while leases are spent
 * before they lapse; Redis gives it at most a share of what is free, and when little is free each
 * request asks Redis on its own, as without leases. Cells a lapsed lease did not use go back.
 */
export class RateLeases {
  private readonly leases = new Map<string, Lease>();
  private sweepAt = 1024;

  constructor(
    private readonly takeCells: TakeCells,
    private readonly settings: RateLeaseSettings = DEFAULT_RATE_LEASES,
    private readonly clock: () => number = () => performance.now(),
  ) {
    if (!(settings.lifetimeMs > 0 && settings.maxCells >= 1 && settings.shareOfRemaining >= 1)) {
      throw new Error(`rate leases need a positive lifetime, a cell and a share of at least 1: ${JSON.stringify(settings)}`);
    }
  }

  /** The decision for one request; null when Redis could not be asked (the caller fails open). */
  async admit(policies: readonly RatePolicy[]): Promise<RateDecision | null> {
    if (policies.length === 0) {
      throw new Error('a rate decision needs at least one policy');
    }
    const lease = this.leaseFor(policies);
    for (;;) {
      const now = this.clock();
      if (lease.cells > 0 && now < lease.until) {
        lease.cells -= 1;
        return this.decisionOf(lease, policies, now, true, lease.cells);
      }
      if (now < lease.refusedUntil) {
        return this.decisionOf(lease, policies, now, false, 0);
      }
      if (lease.tight) {
        return this.takeOne(lease, policies, now);
      }
      lease.renewing ??= this.renew(lease, policies, now).finally(() => (lease.renewing = null));
      lease.waiting += 1;
      const renewal = await lease.renewing;
      lease.waiting -= 1;
      if (!renewal.granted) {
        return renewal.decision;
      }
      // A request that waited for the take is served from it even if the lease lapsed on the way (a round
      // trip longer than the lifetime), as a request asking Redis alone would be: else it would loop.
      if (lease.cells > 0 && lease.generation === renewal.generation) {
        lease.cells -= 1;
        return this.decisionOf(lease, policies, this.clock(), true, lease.cells);
      }
      // Others waiting took every cell: take again.
    }
  }

  private async renew(lease: Lease, policies: readonly RatePolicy[], askedAt: number): Promise<Renewal> {
    const generation = lease.generation;
    const giveBack = lease.cells; // left only in a lapsed lease
    const ends = lease.ends;
    lease.demand = nextDemand(lease, askedAt, this.settings.maxCells);
    lease.cells = 0;
    const cells = Math.min(this.settings.maxCells, Math.max(lease.demand, lease.waiting + 1));
    const took = await this.takeCells(policies, { cells, share: this.settings.shareOfRemaining, giveBack, ends });
    if (!took) {
      if (lease.generation === generation) {
        lease.cells += giveBack; // still to give back, with the next take or at the lapse
      }
      return { granted: false, decision: null };
    }
    this.record(lease, took, askedAt);
    if (took.cells === 0) {
      lease.size = 0;
      return { granted: false, decision: this.decisionOf(lease, policies, this.clock(), false, 0) };
    }
    lease.generation += 1;
    lease.ends = took.policies.map((p) => p.end);
    lease.cells = took.cells;
    lease.size = took.cells;
    lease.until = askedAt + this.settings.lifetimeMs;
    this.giveBackAtLapse(lease, policies, lease.generation);
    return { granted: true, generation: lease.generation };
  }

  /** Few cells free: this request's own cell, asked for at once beside any other request's. */
  private async takeOne(lease: Lease, policies: readonly RatePolicy[], askedAt: number): Promise<RateDecision | null> {
    const took = await this.takeCells(policies, { cells: 1, share: 1, giveBack: 0, ends: [] });
    if (!took) {
      return null;
    }
    this.record(lease, took, askedAt);
    return this.decisionOf(lease, policies, this.clock(), took.cells > 0, 0);
  }

  private record(lease: Lease, took: RateTake, askedAt: number): void {
    lease.last = took;
    lease.askedAt = askedAt;
    lease.tight = Math.floor(took.leastFree / this.settings.shareOfRemaining) < 2;
    if (took.cells === 0) {
      lease.retryAt = askedAt + took.waitMs;
      lease.refusedUntil = askedAt + Math.min(took.waitMs, this.settings.lifetimeMs);
    }
  }

  /** The cells a lease did not use go back once it lapsed, so another replica or token can have them. */
  private giveBackAtLapse(lease: Lease, policies: readonly RatePolicy[], generation: number): void {
    const timer = setTimeout(() => {
      if (lease.generation !== generation || lease.cells === 0 || lease.renewing) {
        return;
      }
      const now = this.clock();
      if (now < lease.until) {
        this.giveBackAtLapse(lease, policies, generation); // this clock is not the timers' (tests)
        return;
      }
      const giveBack = lease.cells;
      lease.cells = 0;
      void this.takeCells(policies, { cells: 0, share: 1, giveBack, ends: lease.ends }).then((took) => {
        if (!took && lease.generation === generation) {
          lease.cells += giveBack;
        }
      });
    }, this.settings.lifetimeMs);
    timer.unref();
  }

  /** Redis's answer at the last take, as of now: cells this lease still holds count as this client's. */
  private decisionOf(lease: Lease, policies: readonly RatePolicy[], now: number, allowed: boolean, unspent: number): RateDecision {
    const last = lease.last;
    const elapsed = now - lease.askedAt;
    return {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.ceil(Math.max(0, lease.retryAt - now) / 1000),
      policies: policies.map((p, i) => {
        const taken = last?.policies[i];
        const interval = (p.windowSeconds * 1000) / p.limit;
        const resetMs = taken && last ? taken.end - last.redisNow - unspent * interval - elapsed : 0;
        return { ...p, remaining: (taken?.remaining ?? 0) + unspent, resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)) };
      }),
    };
  }

  private leaseFor(policies: readonly RatePolicy[]): Lease {
    const id = policies.map((p) => `${p.key}\u0000${p.limit}\u0000${p.windowSeconds}`).join('\u0001');
    let lease = this.leases.get(id);
    if (!lease) {
      if (this.leases.size >= this.sweepAt) {
        this.sweep();
      }
      lease = {
        cells: 0,
        size: 0,
        until: 0,
        generation: 0,
        ends: [],
        last: null,
        askedAt: 0,
        refusedUntil: 0,
        retryAt: 0,
        tight: true, // a key's first request asks for its own cell; the answer says how much is free
        demand: 1,
        renewing: null,
        waiting: 0,
      };
      this.leases.set(id, lease);
    }
    return lease;
  }

  /** Forgets the leases nobody uses (a lapse timer still gives their cells back), so short-lived tokens do not pile up. */
  private sweep(): void {
    const now = this.clock();
    for (const [id, lease] of this.leases) {
      if (!lease.renewing && lease.waiting === 0 && now >= lease.until && now >= lease.refusedUntil) {
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
