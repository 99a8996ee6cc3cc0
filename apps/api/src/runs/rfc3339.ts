const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Postgres' timestamptz range, as far as a filter can need it (years 1 to 9999, UTC). */
const EARLIEST = utc(1, 1, 1, 0, 0, 0, 0);
const LATEST = utc(9999, 12, 31, 23, 59, 59, 999);

/**
 * Epoch milliseconds of an RFC 3339 date-time, or null. Stricter than Date.parse (no 31 February, years
 * 1-9999) so nothing that passes can make Postgres fail. Sub-millisecond digits round up, matching the
 * same runs a finer bound would, since run times are whole milliseconds.
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) {
    return null;
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(m[9] ?? 0);
  const offsetMinutes = Number(m[10] ?? 0);
  const fieldsValid = month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 60;
  if (!fieldsValid || offsetHours > 23 || offsetMinutes > 59) {
    return null;
  }
  const fraction = m[7] ?? '';
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const belowMillis = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  // A leap second (:60) is the instant after :59.999.
  const local = utc(year, month, day, hour, minute, second, millis);
  const offsetMs = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const epochMs = local - offsetMs + belowMillis;
  return epochMs < EARLIEST || epochMs > LATEST ? null : epochMs;
}

function utc(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  // Date.UTC reads years 0 to 99 as 1900 to 1999; setUTCFullYear takes them as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysIn(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
