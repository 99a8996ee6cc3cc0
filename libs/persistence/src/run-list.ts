import type { RunStateName, RunView } from '@wrs/domain';

/** One page of a workspace's runs, newest first; every field but `limit` narrows the list. */
export interface RunListFilter {
  readonly limit: number;
  /** Continue after this run (the last of the previous page) in the list's order. */
  readonly after?: { readonly createdAt: string; readonly id: string };
  readonly states?: readonly RunStateName[];
  /** Inclusive lower bound of `createdAt` (ISO 8601, UTC). */
  readonly createdAfter?: string;
  /** Exclusive upper bound of `createdAt`. */
  readonly createdBefore?: string;
  readonly idempotencyKey?: string;
  /** Runs whose `workload.labels` have every one of these (a key given twice with two values matches none). */
  readonly labels?: readonly { readonly key: string; readonly value: string }[];
}

export interface RunPage {
  readonly items: RunView[];
  /** True when runs remain after the last item. */
  readonly more: boolean;
}
