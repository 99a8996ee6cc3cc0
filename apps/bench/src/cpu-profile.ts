/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that self time needs. */
export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number } }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  /** Sampled time not spent idle, in µs. */
  readonly busyUs: number;
  /** Self time by function (`name place:line`), largest first. */
  readonly byFunction: readonly (readonly [string, number])[];
  /** Self time by package (under node_modules), node: module or file of ours, largest first. */
  readonly byPlace: readonly (readonly [string, number])[];
}

/**
 * Self time by function and by place, skipping the first `sinceMs` of the profile (start-up), so a
 * service's profile from `BENCH_CPU_PROF` says where its time under load went.
 */
export function selfTime(profile: CpuProfile, sinceMs = 0): SelfTime {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let busyUs = 0;
  let elapsedUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    elapsedUs += delta;
    const frame = frames.get(id);
    // (idle) is the event loop waiting; (program) and (garbage collector) are busy time.
    if (elapsedUs < sinceMs * 1000 || !frame || frame.functionName === '(idle)') {
      return;
    }
    const place = placeOf(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byPlace.set(place, (byPlace.get(place) ?? 0) + delta);
    busyUs += delta;
  });
  const largestFirst = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  return { busyUs, byFunction: largestFirst(byFunction), byPlace: largestFirst(byPlace) };
}

/** A package name for files under node_modules, a node: module as is, else the path from dist/ on. */
export function placeOf(url: string): string {
  if (!url) {
    return '(native)';
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const [scope = '', name = ''] = url.slice(modules + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}
