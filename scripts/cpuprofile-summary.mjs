#!/usr/bin/env node
// Self time of a V8 .cpuprofile (from `BENCH_CPU_PROF`) by function and by file or package.
// Usage: node scripts/cpuprofile-summary.mjs <file.cpuprofile> [top=30] [--from-s=N] [--to-s=M] [--timeline]
// --from-s/--to-s keep the samples in that window of the profile (e.g. one scenario, not start-up);
// --timeline prints busy ms per second of the profile, to find the windows;
// --callers=NAME prints the stacks (five frames) that lead to functions named NAME, by self time.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const option = (name, fallback) => Number((args.find((a) => a.startsWith(`--${name}=`)) ?? `=${fallback}`).split('=')[1]);
const fromUs = option('from-s', 0) * 1e6;
const toUs = option('to-s', Infinity) * 1e6;
if (!file) {
  console.error('usage: node scripts/cpuprofile-summary.mjs <file.cpuprofile> [top] [--from-s=N] [--to-s=M] [--timeline]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
const selfUs = new Map();
const busyPerSecond = [];
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  t += delta;
  const second = Math.floor(t / 1e6);
  busyPerSecond[second] = (busyPerSecond[second] ?? 0) + (idleIds.has(profile.samples[i]) ? 0 : delta);
  if (t < fromUs || t >= toUs) {
    continue;
  }
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + delta);
}
if (args.includes('--timeline')) {
  console.log([...busyPerSecond].map((us, s) => `${s}s:${Math.round((us ?? 0) / 1000)}`).join(' '));
}

/** A package name for files under node_modules, else the path from the project's dist or src. */
function placeOf(url) {
  if (!url) {
    return '(native)';
  }
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) {
    return url;
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url;
}

const callersOf = (args.find((a) => a.startsWith('--callers=')) ?? '').slice('--callers='.length);
if (callersOf) {
  const parent = new Map();
  for (const n of profile.nodes) {
    for (const child of n.children ?? []) {
      parent.set(child, n.id);
    }
  }
  const stacks = new Map();
  for (const [id, us] of selfUs) {
    if (nodes.get(id).callFrame.functionName !== callersOf) {
      continue;
    }
    const frames = [];
    for (let at = parent.get(id); at !== undefined && frames.length < 5; at = parent.get(at)) {
      const { functionName, url, lineNumber } = nodes.get(at).callFrame;
      frames.push(`${functionName || '(anonymous)'} ${placeOf(url)}:${lineNumber + 1}`);
    }
    const key = frames.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  console.log(`callers of ${callersOf} (self ms)`);
  for (const [stack, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)}  ${stack}`);
  }
  process.exit(0);
}

const byFunction = new Map();
const byPlace = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = nodes.get(id);
  total += us;
  if (idleIds.has(id)) {
    idle += us;
    continue;
  }
  const place = placeOf(callFrame.url);
  const fn = `${callFrame.functionName || '(anonymous)'} ${place}:${callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
}

const busy = total - idle;
const ms = (us) => (us / 1000).toFixed(1).padStart(9);
const share = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
console.log(`profile ${file}: ${(total / 1e6).toFixed(2)} s sampled, busy ${(busy / 1e6).toFixed(2)} s`);
for (const [title, map] of [
  ['by file or package', byPlace],
  ['by function', byFunction],
]) {
  console.log(`\n${title} (self ms, share of busy)`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms(us)} ${share(us)}  ${name}`);
  }
}
