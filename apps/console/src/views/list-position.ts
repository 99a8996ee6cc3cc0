import { filtersFromUrl, filtersToQuery, type RunFilters } from './run-filters';

/**
 * The runs-list position lives in the URL so reloads, bookmarks and back/forward show the same page. Earlier
 * pages' cursors live in history.state because the API only pages towards older runs ("Newer" needs them).
 */
export interface ListPosition {
  readonly filters: RunFilters;
  readonly cursor: string | null;
  readonly page: number;
  readonly trail: readonly (string | null)[];
}

export interface ListHistoryState {
  readonly trail: (string | null)[];
}

export function listPosition(search: string, state: unknown): ListPosition {
  const params = new URLSearchParams(search);
  const cursor = params.get('cursor') || null;
  const page = cursor ? Math.max(2, Number.parseInt(params.get('page') ?? '', 10) || 2) : 1;
  const trail = (state as Partial<ListHistoryState> | null)?.trail;
  const valid = Array.isArray(trail) && trail.every((c) => c === null || typeof c === 'string');
  return { filters: filtersFromUrl(search), cursor, page, trail: valid ? trail : [] };
}

/** The list's URL for filters and a page (the first page has no cursor and no number). */
export function listUrl(filters: RunFilters, cursor: string | null, page: number): string {
  const query = filtersToQuery(filters);
  if (cursor) {
    query.set('cursor', cursor);
    query.set('page', String(page));
  }
  const text = query.toString();
  return `/console/${text ? `?${text}` : ''}`;
}

/** The page after this one (older runs), remembering this one's cursor for the way back. */
export function olderPage(at: ListPosition, nextCursor: string): { url: string; state: ListHistoryState } {
  return { url: listUrl(at.filters, nextCursor, at.page + 1), state: { trail: [...at.trail, at.cursor] } };
}

/** The page before this one (newer runs), or the first page when the way back is not known. */
export function newerPage(at: ListPosition): { url: string; state: ListHistoryState } {
  const known = at.trail.length > 0;
  const cursor = known ? (at.trail[at.trail.length - 1] ?? null) : null;
  const page = known && cursor ? at.page - 1 : 1;
  return { url: listUrl(at.filters, cursor, page), state: { trail: known ? at.trail.slice(0, -1) : [] } };
}
