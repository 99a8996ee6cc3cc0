import { ApiError, call } from '../api';
import { h } from '../dom';
import type { RunResource as Run } from '@wrs/contracts/types';
import { errorBox } from './error-box';
import { placementSelects } from './placement-select';
import type { Navigate, View } from './view';

/** Where the image of the last run this browser created is kept: an image name, never a credential. */
const LAST_IMAGE_KEY = 'wrs.console.lastImage';
/** What `bash scripts/podman/setup.sh` builds where no registry is reachable (the documented offline setup). */
const LOCAL_IMAGE = 'localhost/wrs-test/base:bookworm';
const EMPTY_IMAGE = 'Enter the image to run (for example busybox:1.36).';

/**
 * Create a run. One Idempotency-Key per form, reused on every retry, so a retry never makes a second run;
 * editing the form makes a new key. The key is shown so a run whose answer was lost can be found by it.
 * The image starts as the one of the last run this browser created here, else empty: no default that
 * works on one machine and fails on the next (an image the engine cannot pull fails the run).
 */
export function createRunView(navigate: Navigate): View {
  const errors = errorBox();
  const image = h('input', {
    id: 'image',
    name: 'image',
    required: true,
    value: lastImage(),
    placeholder: 'e.g. busybox:1.36',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'image-help image-error',
  });
  const imageError = h('p', { id: 'image-error', class: 'field-error', hidden: true });
  // The form refuses an empty (or blank) image itself, with this message, before anything is sent.
  const checkImage = (): boolean => {
    const valid = image.value.trim() !== '';
    image.setCustomValidity(valid ? '' : EMPTY_IMAGE);
    if (valid) {
      imageError.hidden = true;
      image.removeAttribute('aria-invalid');
    }
    return valid;
  };
  const refuseImage = (): void => {
    imageError.textContent = EMPTY_IMAGE;
    imageError.hidden = false;
    image.setAttribute('aria-invalid', 'true');
  };
  checkImage();
  image.addEventListener('input', checkImage);
  image.addEventListener('invalid', refuseImage);
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
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'image' }, 'Image'),
      image,
      h(
        'p',
        { id: 'image-help', class: 'help' },
        'No registry? Use ',
        h('code', { 'data-local-image': '' }, LOCAL_IMAGE),
        ' (built by ',
        h('code', {}, 'bash scripts/podman/setup.sh'),
        ').',
      ),
      imageError,
    ),
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
    if (!checkImage()) {
      refuseImage();
      image.focus();
      return;
    }
    idempotencyKey ??= crypto.randomUUID();
    keyNote.textContent = `Idempotency-Key ${idempotencyKey} (reused if you retry this form).`;
    keyNote.dataset['idempotencyKey'] = idempotencyKey;
    keyNote.hidden = false;
    submit.disabled = true;
    call<Run>('POST', '/runs', { headers: { 'idempotency-key': idempotencyKey }, body: requestBody() })
      .then(({ body }) => {
        rememberImage(body.workload.image);
        navigate(`/console/runs/${body.id}`);
      })
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

function lastImage(): string {
  try {
    return localStorage.getItem(LAST_IMAGE_KEY) ?? '';
  } catch {
    return ''; // storage disabled: start empty
  }
}

/** When the session ends: the image is shared by every user and workspace of this browser, and may name a private registry. */
export function forgetLastImage(): void {
  try {
    localStorage.removeItem(LAST_IMAGE_KEY);
  } catch {
    // storage disabled: nothing kept
  }
}

function rememberImage(name: string): void {
  try {
    localStorage.setItem(LAST_IMAGE_KEY, name);
  } catch {
    // storage disabled or full: the next form starts empty
  }
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
