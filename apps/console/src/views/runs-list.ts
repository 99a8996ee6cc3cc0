import { call } from '../api';
import { fill, h } from '../dom';
import { formatTime, shortId } from '../format';
import type { RunList, RunResource as Run } from '@wrs/contracts/types';
import { errorBox } from './error-box';
import { listPosition, listUrl, newerPage, olderPage } from './list-position';
import { filterForm, filtersToQuery, type RunFilters } from './run-filters';
import { stateBadge } from './state-badge';
import type { Navigate, View } from './view';

const POLL_MS = 2000;
const PAGE_SIZE = 20;

/**
 * The workspace's runs, newest first, a page at a time, refetched every 2 s while the tab is visible.
 * Filters and page live in the URL (list-position), so back/forward and reload keep them.
 */
export function runsListView(search: string, navigate: Navigate): View {
  const at = listPosition(search, history.state);
  const filters = at.filters;
  const errors = errorBox();
  const list = h('ul', { class: 'runs', 'aria-label': 'Runs' });
  const pageLabel = h('span', { class: 'page-label' });
  const newer = h('button', { type: 'button', class: 'secondary' }, '← Newer');
  const older = h('button', { type: 'button', class: 'secondary' }, 'Older →');
  const updated = h('p', { class: 'help' });
  let nextCursor: string | null = null;
  let timer: number | undefined;
  let disposed = false;

  const load = async (): Promise<void> => {
    const query = filtersToQuery(filters);
    query.set('limit', String(PAGE_SIZE));
    if (at.cursor) {
      query.set('cursor', at.cursor);
    }
    try {
      const { body } = await call<RunList>('GET', `/runs?${query.toString()}`);
      if (disposed) {
        return;
      }
      errors.clear();
      nextCursor = body.nextCursor;
      render(body.items);
    } catch (error) {
      errors.show(error, 'Could not load the runs');
    }
  };

  let shown = '';
  const render = (runs: Run[]): void => {
    // Polling must not disturb a keyboard user: the list is rebuilt only when it changed, and a
    // focused run link gets the focus back afterwards.
    const snapshot = JSON.stringify(runs);
    if (snapshot !== shown) {
      shown = snapshot;
      const focused = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('li[data-run-id]')?.dataset['runId'];
      fill(list, ...(runs.length > 0 ? runs.map(runItem) : [h('li', { class: 'empty' }, 'No runs match.')]));
      if (focused) {
        list.querySelector<HTMLElement>(`li[data-run-id="${CSS.escape(focused)}"] a`)?.focus();
      }
    }
    newer.disabled = at.page === 1;
    older.disabled = nextCursor === null;
    pageLabel.textContent = `Page ${at.page}`;
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${POLL_MS / 1000} s.`;
  };

  const poll = (): void => {
    timer = window.setTimeout(() => {
      const next = document.hidden ? Promise.resolve() : load();
      void next.finally(() => {
        if (!disposed) {
          poll();
        }
      });
    }, POLL_MS);
  };

  newer.addEventListener('click', () => {
    const to = newerPage(at);
    navigate(to.url, { state: to.state });
  });
  older.addEventListener('click', () => {
    if (nextCursor) {
      const to = olderPage(at, nextCursor);
      navigate(to.url, { state: to.state });
    }
  });
  const apply = (next: RunFilters): void => navigate(listUrl(next, null, 1));
  // On a phone the filters would fill the first screen, so they start collapsed unless some are set.
  const active = Array.from(filtersToQuery(filters).keys()).length;
  const narrow = window.matchMedia('(max-width: 760px)').matches;
  const filterBox = h(
    'details',
    { class: 'filter-box', open: !narrow || active > 0 },
    h('summary', {}, active > 0 ? `Filters (${active} set)` : 'Filters'),
    filterForm(filters, apply),
  );

  const element = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h(
      'div',
      { class: 'title-row' },
      h('h1', { id: 'page-title', tabindex: '-1' }, 'Runs'),
      h('a', { href: '/console/new', class: 'button', 'data-route': '' }, 'New run'),
    ),
    filterBox,
    errors.element,
    list,
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, newer, pageLabel, older),
    updated,
  );
  void load().finally(poll);
  return {
    element,
    dispose: () => {
      disposed = true;
      window.clearTimeout(timer);
    },
  };
}

function runItem(run: Run): HTMLElement {
  return h(
    'li',
    { class: 'run', 'data-run-id': run.id },
    h('a', { href: `/console/runs/${run.id}`, 'data-route': '', class: 'run-link' }, h('code', {}, shortId(run.id))),
    stateBadge(run.state),
    // The labels sit in the image's cell, so the row's grid keeps its columns.
    h(
      'span',
      { class: 'image' },
      run.workload.image,
      ...Object.entries(run.workload.labels ?? {}).map(([key, value]) => h('code', { class: 'label' }, `${key}=${value}`)),
    ),
    h(
      'span',
      { class: 'where' },
      run.placement ? `${run.placement.provider} / ${run.placement.region}` : `${run.provider} / ${run.region}`,
    ),
    h('time', { datetime: run.createdAt, class: 'created' }, formatTime(run.createdAt)),
  );
}
