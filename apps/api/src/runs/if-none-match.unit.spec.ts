import { ifNoneMatchNames } from './if-none-match';

describe('If-None-Match', () => {
  it.each([
    ['"7"', true],
    ['"3", "7"', true],
    ['W/"7"', true],
    ['*', true],
    ['"70"', false],
    ['7', false],
    ['', false],
  ])('%j names "7": %s', (header, names) => expect(ifNoneMatchNames(header, '"7"')).toBe(names));

  it('no header names nothing', () => expect(ifNoneMatchNames(undefined, '"7"')).toBe(false));
});
