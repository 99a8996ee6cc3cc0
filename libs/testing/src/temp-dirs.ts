import { existsSync } from 'node:fs';

/**
 * Watches every directory `mkdtempSync` makes in this test file (a spy on node:fs itself, which a named
 * import reads at each call) from beforeAll. In afterAll, after `cleanUp` (the file's own removal, run
 * first: Jest runs afterAll hooks in the order they were declared), checks that each is gone and that the
 * watch saw at least one, so a broken watch cannot pass. Returns the list, filled as directories are made.
 */
export function expectTempDirsRemoved(cleanUp: () => void = () => undefined): string[] {
  const made: string[] = [];
  let spy: jest.SpyInstance | undefined;
  beforeAll(() => {
    const fs = process.getBuiltinModule('node:fs');
    const mkdtemp = fs.mkdtempSync;
    spy = jest.spyOn(fs, 'mkdtempSync').mockImplementation(((prefix: string) => {
      const dir = mkdtemp(prefix);
      made.push(dir);
      return dir;
    }) as typeof fs.mkdtempSync);
  });
  afterAll(() => {
    try {
      cleanUp();
    } finally {
      // Only its own spy (the file's others stay as the file left them), and even when cleanUp fails:
      // node:fs is one module for every file the worker runs after this one.
      spy?.mockRestore();
    }
    expect(made.length).toBeGreaterThan(0);
    expect(made.filter((dir) => existsSync(dir))).toEqual([]);
  });
  return made;
}
