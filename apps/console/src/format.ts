/** Dates as the reader's local time; durations in the largest unit that reads well. */
export function formatTime(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function formatDuration(fromIso: string | null, toIso: string | null): string {
  if (!fromIso || !toIso) {
    return '—';
  }
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (ms < 1000) {
    return `${ms} ms`;
  }
  if (ms < 60_000) {
    return `${(ms / 1000).toFixed(1)} s`;
  }
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}
