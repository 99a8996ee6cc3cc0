import { waitAtStart } from './start-wait';

describe('waitAtStart', () => {
  it('tries again until the attempt succeeds within the wait', async () => {
    let tries = 0;
    const lines: string[] = [];
    const value = await waitAtStart(
      'thing',
      10,
      () => {
        tries += 1;
        return tries < 3 ? Promise.reject(new Error(`down ${tries}`)) : Promise.resolve('up');
      },
      (line) => lines.push(line),
    );
    expect({ value, tries }).toEqual({ value: 'up', tries: 3 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'waiting for thing', error: 'down 1' });
  });

  it('with no wait, tries once and throws that error', async () => {
    let tries = 0;
    await expect(
      waitAtStart(
        'thing',
        0,
        () => {
          tries += 1;
          return Promise.reject(new Error('down'));
        },
        () => undefined,
      ),
    ).rejects.toThrow('down');
    expect(tries).toBe(1);
  });

  it('throws the last error once the wait has passed', async () => {
    let tries = 0;
    const started = Date.now();
    await expect(
      waitAtStart(
        'thing',
        1,
        () => {
          tries += 1;
          return Promise.reject(new Error(`down ${tries}`));
        },
        () => undefined,
      ),
    ).rejects.toThrow(/^down [2-9]$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });
});
