import { ApiError, call } from '../api';
import { fill, h } from '../dom';
import { shortId } from '../format';
import type { RunResource as Run } from '@wrs/contracts/types';
import { confirmCancel } from './cancel-dialog';
import { errorBox } from './error-box';
import { runCards, withDispatchEvent, type DispatchAttempt } from './run-details';
import { eventItem, followRunEvents, logItem, type StreamStatus } from './run-events';
import type { View } from './view';

const STATUS_TEXT: Record<StreamStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Connection lost; reconnecting (resumes after the last event shown)…',
  ended: 'Ended',
};

/**
 * One run: its state (with the ETag a cancel sends as If-Match), log lines and state events as they come.
 * The state is refetched after each state event and every few seconds, since the projection can lag.
 */
export function runPageView(runId: string): View {
  // Two boxes, so each error is cleared by what ends it: a refresh's by the next refresh that gets through,
  // a cancel's by the next cancel, or by the run's end.
  const loadErrors = errorBox();
  const cancelErrors = errorBox();
  const details = h('div', { class: 'details', 'aria-live': 'polite', 'aria-busy': 'true' });
  const timing = h('div', { class: 'timing-slot' });
  const where = h('div', { class: 'placement-slot' });
  const status = h('p', { class: 'stream-status', role: 'status', 'data-stream-status': 'connecting' });
  const events = h('ol', { class: 'events', 'aria-label': 'Events' });
  const logs = h('ol', { class: 'logs', 'aria-label': 'Log lines' });
  const cancel = h('button', { type: 'button', class: 'danger', hidden: true }, 'Cancel run…');
  let run: Run | null = null;
  // Its dispatches as its events tell them: the run keeps no placement that was refused.
  let attempts: readonly DispatchAttempt[] = [];
  let rendered = '';
  let etag: string | null = null;
  let disposed = false;
  let refreshTimer: number | undefined;

  const render = (): void => {
    // Re-rendered only when something changed, so a screen reader is not told the same thing again.
    const key = JSON.stringify([run, attempts]);
    if (run && key !== rendered) {
      rendered = key;
      const cards = runCards(run, attempts);
      fill(details, cards.state);
      fill(timing, cards.timing);
      fill(where, cards.placement);
    }
  };

  const show = (next: Run): void => {
    run = next;
    render();
    details.setAttribute('aria-busy', 'false');
    cancel.hidden = run.terminal || run.state === 'canceling';
    if (run.terminal) {
      // Ended: a failed cancel no longer matters, and with the button gone nothing else would clear it.
      cancelErrors.clear();
    }
  };

  const refresh = async (): Promise<void> => {
    try {
      const res = await call<Run>('GET', `/runs/${encodeURIComponent(runId)}`);
      // A GET can trail what the page already shows (the cancel's answer): the projection lags.
      if (disposed || (run && res.body.version < run.version)) {
        return;
      }
      etag = res.headers.get('etag');
      show(res.body);
      loadErrors.clear();
    } catch (error) {
      loadErrors.show(error, 'Could not load the run');
      if (error instanceof ApiError && error.code === 'run_not_found') {
        stop();
        status.textContent = STATUS_TEXT.ended;
        status.dataset['streamStatus'] = 'ended';
      }
    }
  };

  const scheduleRefresh = (delayMs: number): void => {
    window.clearTimeout(refreshTimer);
    refreshTimer = window.setTimeout(() => {
      void refresh().finally(() => {
        if (!disposed && run && !run.terminal) {
          scheduleRefresh(3000);
        }
      });
    }, delayMs);
  };

  cancel.addEventListener('click', () => {
    void (async () => {
      if (!(await confirmCancel(shortId(runId)))) {
        cancel.focus();
        return;
      }
      cancelErrors.clear();
      try {
        // The answer is the run after the cancel (canceling, or canceled before dispatch). A refresh may
        // already show a newer version (the run ended while the answer was on its way): then this one
        // would roll the page back until the next refresh, so it is not shown, as refresh() does.
        const res = await call<Run>('POST', `/runs/${encodeURIComponent(runId)}:cancel`, { headers: etag ? { 'if-match': etag } : {} });
        if (!(run && res.body.version < run.version)) {
          show(res.body);
        }
        scheduleRefresh(1000);
      } catch (error) {
        // The run may have ended while the cancel was on its way (a refresh showed it final and cleared
        // this box): then its failure no longer matters, and with the button gone nothing would clear it.
        if (run?.terminal) {
          return;
        }
        cancelErrors.show(error, 'Cancel failed');
        if (error instanceof ApiError && error.code === 'version_conflict') {
          scheduleRefresh(0);
        }
      }
    })();
  });

  const stop = followRunEvents(
    runId,
    (id, event, type) => {
      if (type === 'run.log') {
        logs.append(logItem(id, event));
      } else {
        events.append(eventItem(id, type, event));
        if (event && event.type !== 'reset') {
          attempts = withDispatchEvent(attempts, event);
          render();
        }
        scheduleRefresh(150);
      }
    },
    (next) => {
      status.textContent = STATUS_TEXT[next];
      status.dataset['streamStatus'] = next;
    },
  );

  const element = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('p', {}, h('a', { href: '/console/', 'data-route': '' }, '← All runs')),
    h('div', { class: 'title-row' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'Run ', h('code', {}, shortId(runId))), cancel),
    h('p', { class: 'help' }, h('code', {}, runId)),
    cancelErrors.element,
    loadErrors.element,
    h(
      'div',
      { class: 'run-layout' },
      details,
      h('section', { class: 'card log-card', 'aria-labelledby': 'logs-title' }, h('h2', { id: 'logs-title' }, 'Log'), status, logs),
      h('section', { class: 'card events-card', 'aria-labelledby': 'events-title' }, h('h2', { id: 'events-title' }, 'Events'), events),
      timing,
      where,
    ),
  );
  void refresh().then(() => {
    if (run && !run.terminal) {
      scheduleRefresh(3000);
    }
  });
  return {
    element,
    dispose: () => {
      disposed = true;
      window.clearTimeout(refreshTimer);
      stop();
    },
  };
}
