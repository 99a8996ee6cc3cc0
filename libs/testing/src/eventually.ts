import { patience } from './patience';

/** Polls until `probe` returns a value that is not undefined, or fails after `timeoutMs` (times the patience knob). */
export async function eventually<T>(probe: () => Promise<T | undefined>, baseTimeoutMs = 10_000, what = 'condition'): Promise<T> {
  const timeoutMs = patience(baseTimeoutMs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
