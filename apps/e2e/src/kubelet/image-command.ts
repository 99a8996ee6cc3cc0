import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './render';

/** What an image built from docker/Dockerfile starts with: its CMD and the ENV of its stages. */
export interface ImageStart {
  readonly cmd: string[];
  readonly env: Record<string, string>;
}

/**
 * Reads a target's CMD and ENV (its own and those of the stages it is built FROM) from the Dockerfile,
 * so the test starts what the image would, e.g. `workload-run-service/api:0.1.0` -> target `api`.
 */
export function imageStart(image: string, dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8')): ImageStart {
  const target = /^workload-run-service\/([a-z-]+)[:@]/.exec(image)?.[1];
  if (!target) {
    throw new Error(`${image} is not an image of docker/Dockerfile`);
  }
  const stages = new Map<string, { from: string; lines: string[] }>();
  let current: { from: string; lines: string[] } | undefined;
  // Continuation lines (`\` at the end) are joined first.
  for (const line of dockerfile.replace(/\\\n\s*/g, ' ').split('\n')) {
    const from = /^FROM (\S+) AS (\S+)/.exec(line);
    if (from) {
      current = { from: from[1]!, lines: [] };
      stages.set(from[2]!, current);
    } else {
      current?.lines.push(line);
    }
  }
  const chain: { from: string; lines: string[] }[] = [];
  for (let stage = stages.get(target); stage; stage = stages.get(stage.from)) {
    chain.unshift(stage);
  }
  if (chain.length === 0) {
    throw new Error(`docker/Dockerfile has no target ${target}`);
  }
  const env: Record<string, string> = {};
  let cmd: string[] | undefined;
  for (const line of chain.flatMap((s) => s.lines)) {
    if (line.startsWith('ENV ')) {
      for (const [, name, value] of line.slice(4).matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
        env[name!] = value!.replace(/^"|"$/g, '');
      }
    } else if (line.startsWith('CMD ')) {
      cmd = JSON.parse(line.slice(4)) as string[];
    }
  }
  if (!cmd) {
    throw new Error(`docker/Dockerfile target ${target} has no CMD`);
  }
  return { cmd, env };
}
