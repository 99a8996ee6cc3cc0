import { isDeepStrictEqual } from 'node:util';

/**
 * The paths at which two JSON values differ, each with both values (shortened), so a report says what
 * differs and not only that something does.
 */
export function differences(left: unknown, right: unknown, path = '$', limit = 5): string[] {
  if (isDeepStrictEqual(left, right)) {
    return [];
  }
  if (isRecord(left) && isRecord(right)) {
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
    return keys.flatMap((key) => differences(left[key], right[key], `${path}.${key}`, limit)).slice(0, limit);
  }
  if (Array.isArray(left) && Array.isArray(right)) {
    const length = Math.max(left.length, right.length);
    return Array.from({ length }, (_, i) => differences(left[i], right[i], `${path}[${i}]`, limit))
      .flat()
      .slice(0, limit);
  }
  return [`${path}: ${shorten(left)} vs ${shorten(right)}`];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shorten(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
