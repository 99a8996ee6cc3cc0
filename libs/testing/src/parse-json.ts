/** A body as JSON, or undefined when it is empty or not JSON: tests hand that on to the contract validator, which decides. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
