import type { Missing } from './optional-dependency';

/** Marks the titles of tests skipped for a missing dependency; the skip reporter prints the reason from it. */
export const SKIP_MARK = '[skipped: ';

function inCi(env: NodeJS.ProcessEnv): boolean {
  return env['CI'] === 'true' || env['CI'] === '1';
}

type Body = () => void;
type TestBody = () => Promise<unknown>;

/**
 * `describe` when the dependency is there. When it is missing: outside CI, Jest's own skip (counted as
 * skipped, never as passed, with the reason in the title); in CI, one failing test that says what is
 * missing, so a CI run cannot go green without the tests it was meant to run.
 */
export function describeNeeding(missing: Missing, env: NodeJS.ProcessEnv = process.env) {
  return (title: string, body: Body): void => {
    if (missing === undefined) {
      describe(title, body);
    } else if (inCi(env)) {
      describe(title, () => {
        it(`needs what is missing: ${missing}`, () => {
          throw new Error(`CI=true and a dependency of these tests is missing: ${missing}`);
        });
      });
    } else {
      describe.skip(`${title} ${SKIP_MARK}${missing}]`, body);
    }
  };
}

/** The same rule for a single test inside a suite that otherwise runs. */
export function itNeeding(missing: Missing, env: NodeJS.ProcessEnv = process.env) {
  return (title: string, body: TestBody, timeoutMs?: number): void => {
    if (missing === undefined) {
      it(title, body, timeoutMs);
    } else if (inCi(env)) {
      it(`${title} (needs what is missing: ${missing})`, () => {
        throw new Error(`CI=true and a dependency of this test is missing: ${missing}`);
      });
    } else {
      it.skip(`${title} ${SKIP_MARK}${missing}]`, body, timeoutMs);
    }
  };
}
