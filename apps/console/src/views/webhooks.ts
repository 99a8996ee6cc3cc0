import { call } from '../api';
import { fill, h } from '../dom';
import { errorBox } from './error-box';
import type { View } from './view';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  secret?: string;
}

interface Delivery {
  id: string;
  runId: string;
  type: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

const KINDS = [
  ['completed', 'Completed (succeeded, failed, canceled)'],
  ['started', 'Started'],
  ['logs', 'Log lines (several to a delivery)'],
] as const;

/**
 * The workspace's webhook endpoints: add one (its secret is shown here once), rotate its secret, see
 * its deliveries (status, attempts, last answer, next attempt), delete it.
 */
export function webhooksView(): View {
  const errors = errorBox();
  const url = h('input', {
    id: 'webhook-url',
    name: 'url',
    type: 'url',
    required: true,
    placeholder: 'https://hooks.example.com/wrs',
    spellcheck: 'false',
  });
  const boxes = KINDS.map(([kind, label]) => {
    const box = h('input', { type: 'checkbox', id: `kind-${kind}`, value: kind, checked: kind === 'completed' });
    return { box, element: h('div', { class: 'check' }, box, h('label', { for: `kind-${kind}` }, label)) };
  });
  const secretBox = h('div', { class: 'card secret', role: 'status', hidden: true });
  const list = h('ul', { class: 'webhooks', 'aria-live': 'polite' });

  const showSecret = (hook: Webhook): void => {
    fill(
      secretBox,
      h('p', {}, `Secret of ${hook.url}: shown this once. Keep it to verify each delivery's webhook-signature.`),
      h('code', { 'data-secret': hook.secret ?? '' }, hook.secret ?? ''),
    );
    secretBox.hidden = false;
  };

  const load = (): void => {
    call<{ items: Webhook[] }>('GET', '/webhooks')
      .then(({ body }) => fill(list, ...(body.items.length === 0 ? [h('li', {}, 'No webhook endpoints yet.')] : body.items.map(item))))
      .catch((error: unknown) => errors.show(error, 'Could not load the webhooks'));
  };

  const item = (hook: Webhook): HTMLElement => {
    const deliveries = h('div', { class: 'deliveries', hidden: true });
    const act = (label: string, run: () => Promise<void>): HTMLButtonElement =>
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => void run().catch((error: unknown) => errors.show(error, `${label} failed`)) },
        label,
      );
    return h(
      'li',
      { 'data-webhook-id': hook.id },
      h('p', {}, h('strong', {}, hook.url), ` ${hook.events.join(', ')}`),
      h(
        'div',
        { class: 'actions' },
        act('Deliveries', async () => {
          const { body } = await call<{ items: Delivery[] }>('GET', `/webhooks/${hook.id}/deliveries`);
          fill(deliveries, deliveryTable(body.items));
          deliveries.hidden = false;
        }),
        act('Rotate secret', async () => showSecret((await call<Webhook>('POST', `/webhooks/${hook.id}:rotate-secret`)).body)),
        act('Delete', async () => {
          await call('DELETE', `/webhooks/${hook.id}`);
          load();
        }),
      ),
      deliveries,
    );
  };

  const form = h(
    'form',
    { class: 'card', method: 'post', action: '#' },
    h('div', { class: 'field' }, h('label', { for: 'webhook-url' }, 'Endpoint URL (https)'), url),
    h('fieldset', {}, h('legend', {}, 'Events'), ...boxes.map((b) => b.element)),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add endpoint')),
    errors.element,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    errors.clear();
    const events = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    call<Webhook>('POST', '/webhooks', { body: { url: url.value.trim(), ...(events.length > 0 ? { events } : {}) } })
      .then(({ body }) => {
        showSecret(body);
        url.value = '';
        load();
      })
      .catch((error: unknown) => errors.show(error, 'The endpoint was not added'));
  });
  load();
  return { element: h('section', {}, h('h1', { tabindex: '-1' }, 'Webhooks'), form, secretBox, list), dispose: () => undefined };
}

function deliveryTable(items: Delivery[]): HTMLElement {
  if (items.length === 0) {
    return h('p', {}, 'No deliveries yet.');
  }
  const header = ['Delivery', 'Type', 'Run', 'Status', 'Attempts', 'Last answer', 'Next attempt'].map((t) => h('th', { scope: 'col' }, t));
  const rows = items.map((d) =>
    h(
      'tr',
      { 'data-delivery-status': d.status },
      ...[
        d.id,
        d.type,
        d.runId,
        d.status,
        String(d.attempts),
        d.responseStatus === null ? (d.error ?? '—') : String(d.responseStatus),
        d.nextAttemptAt ?? '—',
      ].map((t) => h('td', {}, t)),
    ),
  );
  return h('table', {}, h('thead', {}, h('tr', {}, ...header)), h('tbody', {}, ...rows));
}
