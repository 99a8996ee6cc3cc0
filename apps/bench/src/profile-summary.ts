import { readFileSync } from 'node:fs';
import { busyPerSecond, callersOf, selfTime, type CpuProfile, type Window } from './cpu-profile';

const USAGE =
  'usage: npm run bench:profile -- <file.cpuprofile> [top=25] [--from-s=N] [--to-s=M] [--since-ms=N] [--timeline] [--callers=NAME]';

/**
 * `npm run bench:profile -- <file.cpuprofile> [top=25] [options]`: a profile's self time by package or
 * file and by function, the largest first, as a share of its busy time.
 * - `--from-s=N`, `--to-s=M`: only that window of the profile (one scenario, not start-up);
 *   `--since-ms=N` is `--from-s` in ms;
 * - `--timeline`: busy ms per second of the whole profile first, to find the window;
 * - `--callers=NAME`: instead, the stacks (five frames) that lead to functions named NAME, by self time.
 */
function main(args: readonly string[]): void {
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (!file) {
    console.error(USAGE);
    process.exit(2);
  }
  const option = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  const fromMs = option('from-s') !== undefined ? Number(option('from-s')) * 1000 : Number(option('since-ms') ?? 0);
  const toMs = option('to-s') !== undefined ? Number(option('to-s')) * 1000 : Infinity;
  const window: Window = { fromMs, toMs };
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const ms = (us: number): string => (us / 1000).toFixed(1).padStart(9);
  if (args.includes('--timeline')) {
    console.log(
      busyPerSecond(profile)
        .map((busyMs, s) => `${s}s:${busyMs}`)
        .join(' '),
    );
  }
  const during = `${fromMs > 0 ? ` from ${fromMs / 1000} s` : ''}${toMs < Infinity ? ` to ${toMs / 1000} s` : ''}`;
  const callers = option('callers');
  if (callers) {
    console.log(`callers of ${callers}${during} (self ms)`);
    console.log(
      callersOf(profile, callers, window)
        .slice(0, top)
        .map(([stack, us]) => `${ms(us)}  ${stack}`)
        .join('\n'),
    );
    return;
  }
  const { busyUs, byPlace, byFunction } = selfTime(profile, window);
  const row = ([name, us]: readonly [string, number]): string => `${ms(us)} ms ${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${name}`;
  console.log(`${file}: busy ${(busyUs / 1e6).toFixed(2)} s${during}`);
  console.log(`\nself time by package or file\n${byPlace.slice(0, top).map(row).join('\n')}`);
  console.log(`\nself time by function\n${byFunction.slice(0, top).map(row).join('\n')}`);
}

main(process.argv.slice(2));
