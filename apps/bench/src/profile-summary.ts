import { readFileSync } from 'node:fs';
import { selfTime, type CpuProfile } from './cpu-profile';

/**
 * `npm run bench:profile -- <file.cpuprofile> [top=25] [--since-ms=N]`: a profile's self time by
 * package or file and by function, the largest first, as a share of its busy time.
 */
function main(args: readonly string[]): void {
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (!file) {
    console.error('usage: npm run bench:profile -- <file.cpuprofile> [top=25] [--since-ms=N]');
    process.exit(2);
  }
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  const sinceMs = Number(args.find((a) => a.startsWith('--since-ms='))?.split('=')[1] ?? 0);
  const { busyUs, byPlace, byFunction } = selfTime(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, sinceMs);
  const row = ([name, us]: readonly [string, number]): string =>
    `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${name}`;
  console.log(`${file}: busy ${(busyUs / 1e6).toFixed(2)} s${sinceMs > 0 ? ` after the first ${sinceMs} ms` : ''}`);
  console.log(`\nself time by package or file\n${byPlace.slice(0, top).map(row).join('\n')}`);
  console.log(`\nself time by function\n${byFunction.slice(0, top).map(row).join('\n')}`);
}

main(process.argv.slice(2));
