import { h } from '../dom';
import { RUN_STATES } from '../types';

/** The list's filters, as kept in the page's URL (so a filtered list can be bookmarked and shared). */
export interface RunFilters {
  states: string[];
  createdAfter?: string;
  createdBefore?: string;
  idempotencyKey?: string;
  /** `key=value` label filters; a run must have all of them (repeated `label` in the URL, as in the API). */
  labels?: string[];
}

export function filtersFromUrl(search: string): RunFilters {
  const params = new URLSearchParams(search);
  const value = (name: string): string | undefined => params.get(name) || undefined;
  return {
    states: (params.get('state') ?? '').split(',').filter(Boolean),
    createdAfter: value('createdAfter'),
    createdBefore: value('createdBefore'),
    idempotencyKey: value('idempotencyKey'),
    labels: params.getAll('label').filter(Boolean),
  };
}

export function filtersToQuery(filters: RunFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.states.length > 0) {
    params.set('state', filters.states.join(','));
  }
  for (const name of ['createdAfter', 'createdBefore', 'idempotencyKey'] as const) {
    const value = filters[name];
    if (value) {
      params.set(name, value);
    }
  }
  for (const label of filters.labels ?? []) {
    params.append('label', label);
  }
  return params;
}

/** The filter form: state checkboxes, a creation-time window (local time), an Idempotency-Key and labels. */
export function filterForm(current: RunFilters, onApply: (filters: RunFilters) => void): HTMLFormElement {
  const boxes = RUN_STATES.map((state) =>
    h('input', { type: 'checkbox', id: `state-${state}`, name: 'state', value: state, checked: current.states.includes(state) }),
  );
  const after = h('input', { type: 'datetime-local', id: 'created-after', step: '1', value: toLocalInput(current.createdAfter) });
  const before = h('input', { type: 'datetime-local', id: 'created-before', step: '1', value: toLocalInput(current.createdBefore) });
  const key = h('input', { type: 'text', id: 'idempotency-key', autocomplete: 'off', value: current.idempotencyKey ?? '' });
  const labels = h('input', {
    type: 'text',
    id: 'labels',
    autocomplete: 'off',
    placeholder: 'team=ml env=prod',
    'aria-describedby': 'labels-help',
    value: (current.labels ?? []).join(' '),
  });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter runs' },
    h(
      'fieldset',
      { class: 'states' },
      h('legend', {}, 'State'),
      ...RUN_STATES.map((state, i) => h('label', { class: 'check', for: `state-${state}` }, boxes[i] ?? null, ` ${state}`)),
    ),
    h('div', { class: 'field' }, h('label', { for: 'created-after' }, 'Created at or after'), after),
    h('div', { class: 'field' }, h('label', { for: 'created-before' }, 'Created before'), before),
    h('div', { class: 'field' }, h('label', { for: 'idempotency-key' }, 'Idempotency-Key'), key),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'labels' }, 'Labels'),
      labels,
      h('p', { class: 'help', id: 'labels-help' }, 'key=value, separated by spaces; a run must have all of them.'),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply filters'),
      h('button', { type: 'reset', class: 'secondary' }, 'Clear'),
    ),
  );
  const read = (): RunFilters => ({
    states: boxes.filter((b) => b.checked).map((b) => b.value),
    createdAfter: fromLocalInput(after.value),
    createdBefore: fromLocalInput(before.value),
    idempotencyKey: key.value.trim() || undefined,
    labels: labels.value.split(/\s+/).filter(Boolean),
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onApply(read());
  });
  form.addEventListener('reset', () => onApply({ states: [] }));
  return form;
}

/** datetime-local holds local wall time without a zone; the API takes RFC 3339 instants. */
function fromLocalInput(value: string): string | undefined {
  return value ? new Date(value).toISOString() : undefined;
}

function toLocalInput(iso: string | undefined): string {
  if (!iso || Number.isNaN(Date.parse(iso))) {
    return '';
  }
  const d = new Date(iso);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
