import { ApiError, call } from '../api';
import { h } from '../dom';
import type { RunResource as Run } from '@wrs/contracts/types';
import { errorBox } from './error-box';
import { placementSelects } from './placement-select';
import type { Navigate, View } from './view';

/**
 * Create a run. One Idempotency-Key per form, reused on every retry, so a retry never makes a second run;
 * editing the form makes a new key. The key is shown so a run whose answer was lost can be found by it.
 */
export function createRunView(navigate: Navigate): View {
  const errors = errorBox();
  const image = h('input', { id: 'image', name: 'image', required: true, value: 'busybox:1.36', autocomplete: 'off', spellcheck: 'false' });
  const args = h('textarea', { id: 'args', name: 'args', rows: '3', spellcheck: 'false', 'aria-describedby': 'args-help' });
  const env = h('textarea', { id: 'env', name: 'env', rows: '4', spellcheck: 'false', 'aria-describedby': 'env-help' });
  env.value = 'SIM_DURATION_MS=5000\nSIM_LOG_LINES=5';
  const timeout = h('input', { id: 'timeout', name: 'timeout', type: 'number', min: '1', max: '86400', inputmode: 'numeric' });
  const { provider, region } = placementSelects((error) => errors.show(error, 'Could not load the providers and regions'));
  const submit = h('button', { type: 'submit' }, 'Create run');
  const keyNote = h('p', { class: 'help', hidden: true, 'data-idempotency-key': '' });
  let idempotencyKey: string | null = null;

  const form = h(
    'form',
    { class: 'card create', method: 'post', action: '#' },
    field('image', 'Image', image),
    field('args', 'Arguments (one per line)', args, 'args-help', 'Passed to the image’s entrypoint, in order.'),
    field(
      'env',
      'Environment (NAME=value, one per line)',
      env,
      'env-help',
      'The simulator reads SIM_DURATION_MS, SIM_LOG_LINES, SIM_EXIT_CODE.',
    ),
    field('timeout', 'Timeout in seconds (optional)', timeout),
    h('div', { class: 'row' }, field('provider', 'Provider', provider), field('region', 'Region', region)),
    h('div', { class: 'actions' }, submit, h('a', { href: '/console/', 'data-route': '', class: 'button secondary' }, 'Back to runs')),
    keyNote,
    errors.element,
  );
  form.addEventListener('input', () => {
    idempotencyKey = null;
    keyNote.hidden = true;
    submit.textContent = 'Create run';
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    errors.clear();
    idempotencyKey ??= crypto.randomUUID();
    keyNote.textContent = `Idempotency-Key ${idempotencyKey} (reused if you retry this form).`;
    keyNote.dataset['idempotencyKey'] = idempotencyKey;
    keyNote.hidden = false;
    submit.disabled = true;
    call<Run>('POST', '/runs', { headers: { 'idempotency-key': idempotencyKey }, body: requestBody() })
      .then(({ body }) => navigate(`/console/runs/${body.id}`))
      .catch((error: unknown) => {
        errors.show(error, 'The run was not created');
        const retryable = error instanceof ApiError && (error.retryable || error.status === 0);
        submit.textContent = retryable ? 'Retry (same request)' : 'Create run';
      })
      .finally(() => {
        submit.disabled = false;
      });
  });

  const requestBody = (): unknown => {
    const lines = (text: string): string[] =>
      text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    const envEntries = lines(env.value).map((line) => {
      const at = line.indexOf('=');
      return at === -1 ? [line, ''] : [line.slice(0, at), line.slice(at + 1)];
    });
    const argList = lines(args.value);
    return {
      workload: {
        image: image.value.trim(),
        ...(argList.length > 0 ? { args: argList } : {}),
        ...(envEntries.length > 0 ? { env: Object.fromEntries(envEntries) } : {}),
        ...(timeout.value ? { timeoutSeconds: Number(timeout.value) } : {}),
      },
      provider: provider.value,
      region: region.value,
    };
  };

  const element = h('section', { 'aria-labelledby': 'page-title' }, h('h1', { id: 'page-title', tabindex: '-1' }, 'New run'), form);
  return { element, dispose: () => undefined };
}

function field(id: string, label: string, control: HTMLElement, helpId?: string, help?: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    helpId && help ? h('p', { id: helpId, class: 'help' }, help) : null,
  );
}
