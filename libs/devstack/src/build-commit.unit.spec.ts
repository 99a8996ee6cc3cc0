import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stackBuildCommit } from './build-commit';

describe('the BUILD_COMMIT npm start gives its services', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wrs-build-commit-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("is the checkout's short HEAD in a git checkout", () => {
    const repo = tempDir();
    const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
    git('init', '-q');
    writeFileSync(join(repo, 'a.txt'), 'a');
    git('add', 'a.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'one');
    const head = git('rev-parse', '--short', 'HEAD');
    expect(head).toMatch(/^[0-9a-f]{4,}$/);
    expect(stackBuildCommit(repo, {})).toBe(head);
  });

  it("is the caller's own BUILD_COMMIT when set", () => {
    expect(stackBuildCommit(tempDir(), { BUILD_COMMIT: 'abc1234' })).toBe('abc1234');
  });

  it('is unset, without an error, outside a git checkout or without git', () => {
    const plain = tempDir();
    expect(stackBuildCommit(plain, {})).toBeUndefined();
    expect(stackBuildCommit(join(plain, 'missing'), {})).toBeUndefined();
    const path = process.env['PATH'];
    process.env['PATH'] = plain; // no git on it
    try {
      expect(stackBuildCommit(process.cwd(), {})).toBeUndefined(); // this repository's checkout
    } finally {
      process.env['PATH'] = path;
    }
  });
});
