/**
 * Lets one line per key through every `everyMs` and counts the rest, so a run stuck on a dead engine
 * (tried on every sweep, several times a second) writes a line now and then, not thousands.
 */
export function throttledPerKey(everyMs: number, now: () => number = Date.now): (key: string) => { log: boolean; suppressed: number } {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (key) => {
    const seen = last.get(key);
    const t = now();
    if (seen && t - seen.at < everyMs) {
      seen.suppressed++;
      return { log: false, suppressed: seen.suppressed };
    }
    if (last.size >= 10_000) {
      last.clear(); // forgetting only lets a line through early
    }
    last.set(key, { at: t, suppressed: 0 });
    return { log: true, suppressed: seen?.suppressed ?? 0 };
  };
}
