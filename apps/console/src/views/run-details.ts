import { h } from '../dom';
import { formatDuration, formatTime } from '../format';
import type { Placement, RunEvent, RunResource as Run } from '@wrs/contracts/types';
import { stateBadge } from './state-badge';

type Refusal = Extract<RunEvent, { type: 'run.dispatch_refused' }>['data']['refusal'];

/**
 * One dispatch as the run's events tell it (`run.dispatched`, then `run.dispatch_refused` if its provider
 * refused the run): the run resource keeps only the current placement, and drops a refused one.
 */
export interface DispatchAttempt {
  readonly provider: string;
  readonly region: string;
  /** When it was dispatched; null when the stream began after that event. */
  readonly at: string | null;
  readonly refused: { readonly code: Refusal['code']; readonly message: string; readonly at: string } | null;
}

/** The attempts with this event folded in (events that are not about dispatch change nothing). */
export function withDispatchEvent(attempts: readonly DispatchAttempt[], event: RunEvent): readonly DispatchAttempt[] {
  if (event.type === 'run.dispatched') {
    const { provider, region } = event.data.placement;
    return [...attempts, { provider, region, at: event.data.at, refused: null }];
  }
  if (event.type === 'run.dispatch_refused') {
    const { provider, region, code, message } = event.data.refusal;
    const refused = { code, message, at: event.data.at };
    const last = attempts[attempts.length - 1];
    if (last && !last.refused && last.provider === provider && last.region === region) {
      return [...attempts.slice(0, -1), { ...last, refused }];
    }
    return [...attempts, { provider, region, at: null, refused }];
  }
  return attempts;
}

/** A run's cards, apart so the page can put the state first (on a phone, before everything else). */
export interface RunCards {
  readonly state: HTMLElement;
  readonly timing: HTMLElement;
  readonly placement: HTMLElement;
}

/**
 * State, timing, and placement (and why) of a run, each a card with a description list. `attempts` are
 * its dispatches as its events tell them, so a refused dispatch is shown as what happened, not as none.
 */
export function runCards(run: Run, attempts: readonly DispatchAttempt[] = []): RunCards {
  const refused = attempts.filter((a) => a.refused !== null);
  const row = (term: string, ...value: (Node | string | null)[]): HTMLElement[] => [h('dt', {}, term), h('dd', {}, ...value)];
  const state = h(
    'section',
    { class: 'card', 'aria-labelledby': 'state-title' },
    h('h2', { id: 'state-title' }, 'State'),
    h(
      'dl',
      {},
      ...row('State', stateBadge(run.state), run.terminal ? ' (final)' : ''),
      ...row('Image', h('code', {}, run.workload.image)),
      ...(run.workload.args?.length ? row('Arguments', h('code', {}, run.workload.args.join(' '))) : []),
      ...(Object.keys(run.workload.labels ?? {}).length > 0
        ? row(
            'Labels',
            ...Object.entries(run.workload.labels ?? {}).flatMap(([key, value]) => [h('code', { class: 'label' }, `${key}=${value}`), ' ']),
          )
        : []),
      ...row('Requested', `${run.provider} / ${run.region}`),
      ...row('Idempotency-Key', h('code', {}, run.idempotencyKey)),
      ...row('Version', String(run.version)),
      ...(run.exitCode !== null ? row('Exit code', String(run.exitCode)) : []),
      ...(run.failure ? row('Failure', h('code', {}, run.failure.code), ` ${run.failure.message}`) : []),
      ...(run.cancellation
        ? row('Cancel requested', `by ${run.cancellation.requestedBy} at ${formatTime(run.cancellation.requestedAt)}`)
        : []),
    ),
  );
  const timing = h(
    'section',
    { class: 'card', 'aria-labelledby': 'timing-title' },
    h('h2', { id: 'timing-title' }, 'Timing'),
    h(
      'dl',
      {},
      ...row('Created', formatTime(run.createdAt)),
      ...refused.flatMap((a) =>
        row(
          'Dispatched',
          a.at ? `${formatTime(a.at)} ` : '',
          `to ${a.provider} / ${a.region}, refused ${formatTime(a.refused?.at ?? null)} (`,
          h('code', {}, a.refused?.code ?? ''),
          ')',
        ),
      ),
      ...(run.dispatchedAt || refused.length === 0 || !run.terminal ? row('Dispatched', dispatchedText(run, refused.length)) : []),
      ...row('Started', formatTime(run.startedAt)),
      ...row('Finished', formatTime(run.finishedAt)),
      ...row('Waiting', formatDuration(run.createdAt, run.startedAt ?? run.finishedAt)),
      ...row('Running', formatDuration(run.startedAt, run.finishedAt)),
    ),
  );
  const placement = h(
    'section',
    { class: 'card', 'aria-labelledby': 'placement-title' },
    h('h2', { id: 'placement-title' }, 'Placement'),
    run.placement ? placementDetails(run.placement) : notPlaced(run, refused),
  );
  return { state, timing, placement };
}

function dispatchedText(run: Run, refusedBefore: number): string {
  if (run.dispatchedAt) {
    const where = run.placement ? ` to ${run.placement.provider} / ${run.placement.region}` : '';
    return `${formatTime(run.dispatchedAt)}${where}`;
  }
  if (run.terminal) {
    return 'Not placed';
  }
  return refusedBefore > 0 ? 'Not yet: queued again for the next candidate' : '—';
}

/** A run with no placement: why not (its failure, a cancel, a wait), and the dispatches refused on the way. */
function notPlaced(run: Run, refused: readonly DispatchAttempt[]): HTMLElement {
  const summary =
    run.state === 'failed' && run.failure
      ? refused.length > 0
        ? // The refusals below say why; the failure (under State) also names candidates skipped without a try.
          h('p', {}, 'Not placed: no provider took the run, so it failed (', h('code', {}, run.failure.code), ').')
        : h('p', {}, 'Not placed: the run failed before any provider took it: ', h('code', {}, run.failure.code), ` ${run.failure.message}`)
      : run.state === 'canceled'
        ? h('p', {}, 'Not placed: canceled before any provider took it.')
        : run.waiting
          ? h(
              'p',
              {},
              `Not dispatched yet: waiting since ${formatTime(run.waiting.since)} (`,
              h('code', {}, run.waiting.reason),
              `) ${run.waiting.message}`,
            )
          : refused.length > 0
            ? h('p', {}, 'Not placed yet: queued again for the next candidate.')
            : h('p', {}, run.terminal ? 'Not placed.' : 'Not dispatched yet.');
  return h(
    'div',
    { class: 'not-placed', 'data-placement': 'none' },
    summary,
    refused.length > 0 ? h('h3', {}, 'Refused dispatches') : null,
    refused.length > 0
      ? h(
          'ul',
          {},
          ...refused.map((a) =>
            h(
              'li',
              { 'data-refusal-code': a.refused?.code ?? '' },
              `${a.provider} / ${a.region} refused it${a.refused ? ` at ${formatTime(a.refused.at)}` : ''}: `,
              h('code', {}, a.refused?.code ?? ''),
              ` ${a.refused?.message ?? ''}`,
            ),
          ),
        )
      : null,
  );
}

function placementDetails(placement: Placement): HTMLElement {
  return h(
    'div',
    { class: 'placement' },
    h('p', {}, 'Placed on ', h('strong', {}, `${placement.provider} / ${placement.region}`), `: ${placement.reason}`),
    h('h3', {}, 'Candidates, in policy order'),
    h('ol', {}, ...placement.candidates.map((c) => h('li', {}, `${c.provider} / ${c.region}`))),
    placement.failovers?.length
      ? h(
          'div',
          {},
          h('h3', {}, 'Skipped'),
          h(
            'ul',
            {},
            ...placement.failovers.map((f) => h('li', {}, `${f.provider} / ${f.region}: `, h('code', {}, f.code), ` ${f.message}`)),
          ),
        )
      : null,
  );
}
