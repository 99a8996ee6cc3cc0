import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectTempDirsRemoved } from './temp-dirs';

// A spy of the file's own, on another object, made before the watch's and checked after its afterAll
// (Jest runs afterAll hooks in the order they were declared): the watch restores only its own spy.
const clock = { now: (): number => 1 };
let other: jest.SpyInstance | undefined;
beforeAll(() => {
  other = jest.spyOn(clock, 'now').mockReturnValue(2);
});

let dir = '';
const made = expectTempDirsRemoved(() => rmSync(dir, { recursive: true, force: true }));

afterAll(() => {
  try {
    expect([jest.isMockFunction(clock.now), clock.now()]).toEqual([true, 2]);
    // Its own spy is gone: node:fs's mkdtempSync is itself again.
    expect(jest.isMockFunction(process.getBuiltinModule('node:fs').mkdtempSync)).toBe(false);
  } finally {
    other?.mockRestore();
  }
});

it('sees the directories mkdtempSync makes', () => {
  dir = mkdtempSync(join(tmpdir(), 'wrs-temp-dirs-'));
  expect(made).toEqual([dir]);
  expect(clock.now()).toBe(2);
});
