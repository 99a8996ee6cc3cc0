/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that self time needs. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
    readonly children?: readonly number[];
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A part of a profile, in ms from its start: from `fromMs` (included) to `toMs` (left out). */
export interface Window {
  readonly fromMs?: number;
  readonly toMs?: number;
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
 * Self time by function and by place within a window of the profile (to leave out start-up, or keep
 * one scenario), so a service's profile from `BENCH_CPU_PROF` says where its time under load went.
 */
export function selfTime(profile: CpuProfile, window: Window = {}): SelfTime {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let busyUs = 0;
  for (const [id, delta] of samplesIn(profile, window)) {
    const frame = frames.get(id);
    // (idle) is the event loop waiting; (program) and (garbage collector) are busy time.
    if (!frame || frame.functionName === '(idle)') {
      continue;
    }
    const place = placeOf(frame.url);
    add(byFunction, frameName(frame), delta);
    add(byPlace, place, delta);
    busyUs += delta;
  }
  return { busyUs, byFunction: largestFirst(byFunction), byPlace: largestFirst(byPlace) };
}

/** Busy ms in each second of the whole profile, to find a scenario's window. */
export function busyPerSecond(profile: CpuProfile): number[] {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const busyUs: number[] = [];
  let elapsedUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    elapsedUs += delta;
    const second = Math.floor(elapsedUs / 1e6);
    while (busyUs.length <= second) {
      busyUs.push(0);
    }
    busyUs[second] = (busyUs[second] ?? 0) + (idle.has(id) ? 0 : delta);
  });
  return busyUs.map((us) => Math.round(us / 1000));
}

/**
 * The stacks (up to `depth` callers, nearest first) that lead to functions named `name`, with the self
 * time each led to within the window, largest first.
 */
export function callersOf(profile: CpuProfile, name: string, window: Window = {}, depth = 5): [string, number][] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const child of n.children ?? []) {
      parent.set(child, n.id);
    }
  }
  const stacks = new Map<string, number>();
  for (const [id, delta] of samplesIn(profile, window)) {
    if (nodes.get(id)?.callFrame.functionName !== name) {
      continue;
    }
    const callers: string[] = [];
    for (let at = parent.get(id); at !== undefined && callers.length < depth; at = parent.get(at)) {
      callers.push(frameName(nodes.get(at)!.callFrame));
    }
    add(stacks, callers.join(' < '), delta);
  }
  return largestFirst(stacks);
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

/** Each sample's node id and time (µs) within the window. */
function* samplesIn(profile: CpuProfile, { fromMs = 0, toMs = Infinity }: Window): Generator<[number, number]> {
  let elapsedUs = 0;
  for (const [i, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[i] ?? 0;
    elapsedUs += delta;
    if (elapsedUs >= fromMs * 1000 && elapsedUs < toMs * 1000) {
      yield [id, delta];
    }
  }
}

function frameName(frame: CpuProfile['nodes'][number]['callFrame']): string {
  return `${frame.functionName || '(anonymous)'} ${placeOf(frame.url)}:${frame.lineNumber + 1}`;
}

function add(totals: Map<string, number>, key: string, us: number): void {
  totals.set(key, (totals.get(key) ?? 0) + us);
}

function largestFirst(totals: Map<string, number>): [string, number][] {
  return [...totals].sort((a, b) => b[1] - a[1]);
}
