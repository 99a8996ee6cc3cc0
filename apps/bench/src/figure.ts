import type { Target } from './target';

/** One measured figure of a scenario, with the baseline measured beside it and the target it is judged by. */
export interface Figure {
  readonly scenario: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly what: string; readonly value: number };
  readonly ratio?: number;
  readonly target?: Target;
}
