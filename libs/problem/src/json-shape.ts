/** Bounds of a JSON request body's shape, checked before anything walks it recursively. */
export const JSON_MAX_DEPTH = 32;
export const JSON_MAX_MEMBERS = 1024;

/**
 * The deepest nesting in a JSON text, found in one pass without parsing. It runs before JSON.parse so
 * a very deep body cannot overflow the stack in a later recursive walk (validator, logger).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        i++; // the escaped character, whatever it is
      } else if (c === 0x22) {
        inString = false;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      deepest = Math.max(deepest, depth);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

/** Object members and array items in a parsed value, counted without recursion. */
export function jsonMembers(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'object' && next !== null) {
      const children = Array.isArray(next) ? next : Object.values(next);
      count += children.length;
      pending.push(...children);
    }
  }
  return count;
}
