import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { modelFor } from './kubelet/schemas';

const ROOT = join(__dirname, '..', '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The Job docs/operations.md has an operator apply from a heredoc (restore: the projection rebuild). */
function documentedJob(): { spec: { template: { spec: { containers: { image: string; command: string[] }[] } } } } {
  const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const heredoc = /<<'YAML'[^\n]*\n([\s\S]*?)\n\s*YAML\n/.exec(docs)?.[1];
  if (!heredoc) {
    throw new Error('docs/operations.md has no Job in a YAML heredoc');
  }
  const indent = /^ */.exec(heredoc)![0].length;
  return parse(
    heredoc
      .split('\n')
      .map((line) => line.slice(indent))
      .join('\n'),
  ) as ReturnType<typeof documentedJob>;
}

describe('the commands docs/operations.md gives operators', () => {
  it('the rebuild Job is a valid Job of this release running the built ops command', () => {
    const job = documentedJob();
    const Model = modelFor('batch/v1', 'Job');
    expect(() => new Model(job).validate()).not.toThrow();
    const [container] = job.spec.template.spec.containers;
    expect(container!.image).toBe(`workload-run-service/migrate:${VERSION}`);
    const [node, main, command] = container!.command;
    expect([node, command]).toEqual(['node', 'rebuild-projection']);
    // dist/apps/... is the build of apps/... (scripts/build.mjs), which the migrate image holds.
    expect(existsSync(join(ROOT, main!.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
  });

  it('npm run ops runs the same built command', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['ops']).toContain(documentedJob().spec.template.spec.containers[0]!.command[1]);
  });
});
