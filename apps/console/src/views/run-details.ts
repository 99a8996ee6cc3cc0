import { h } from '../dom';
import { formatDuration, formatTime } from '../format';
import type { Placement, RunResource as Run } from '@wrs/contracts/types';
import { stateBadge } from './state-badge';

/** A run's cards, apart so the page can put the state first (on a phone, before everything else). */
export interface RunCards {
  readonly state: HTMLElement;
  readonly timing: HTMLElement;
  readonly placement: HTMLElement;
}

/** State, timing, and placement (and why) of a run, each a card with a description list. */
export function runCards(run: Run): RunCards {
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
      ...row('Dispatched', formatTime(run.dispatchedAt)),
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
    run.placement ? placementDetails(run.placement) : h('p', {}, 'Not dispatched yet.'),
  );
  return { state, timing, placement };
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
