export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) {
    return NaN;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) {
    return NaN;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
