/** One series of a Prometheus text exposition: name, labels and value. */
export interface PromSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Parses the text format (version 0.0.4) that prom-client writes: comments skipped, one sample a line. */
export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || line.startsWith('#')) {
      continue;
    }
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of every series of `name` whose labels include `labels` (0 when there is none). */
export function sumOf(samples: readonly PromSample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

export async function scrape(port: number): Promise<PromSample[]> {
  // An operator port, not the API: no contract operation to hold it to.
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) {
    throw new Error(`/metrics answered ${res.status}`);
  }
  return parsePrometheusText(await res.text());
}
