import { prismProblems } from './prism-proxy';

/**
 * Lines as Prism 5.14's CLI prints them (captured from its output): its log goes through signale, which
 * prints a timestamp, the prefix, a badge and the level's label padded, and labels warn `warning`.
 */
const printed = {
  info: '[4:20:46 AM] › [HTTP SERVER] get /runs ℹ  info      Request received',
  violationInfo: '[4:20:46 AM] ›     [VALIDATOR] ℹ  info      Violation: response.body Request body property x is unknown',
  warning: '[4:20:46 AM] › [HTTP SERVER] get /runs ⚠  warning   Upstream call to /runs has returned 501',
  error: '[4:20:46 AM] › [HTTP SERVER] get /runs ✖  error     Request terminated with error: https://stoplight.io/prism/errors#VIOLATIONS',
  fatal: '[4:20:46 AM] › [CLI] ✖  fatal     No operations found in the current file.',
};

describe("the problems in Prism's output", () => {
  it('finds errors, fatal errors, warnings and violations of any level, and nothing in ordinary lines', () => {
    expect(prismProblems(Object.values(printed))).toEqual([printed.violationInfo, printed.warning, printed.error, printed.fatal]);
  });

  it('reads lines with colours too', () => {
    expect(prismProblems([`\u001b[33m⚠\u001b[39m  \u001b[33mwarning\u001b[39m   Upstream call to /runs has returned 501`])).toHaveLength(1);
  });
});
