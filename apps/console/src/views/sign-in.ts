import { asBearerToken } from '../bearer-token';
import { h } from '../dom';
import { signIn } from '../session';
import type { Session } from '@wrs/contracts/types';
import { errorBox } from './error-box';
import type { View } from './view';

const MALFORMED = 'The token is malformed: it has spaces, line breaks or characters no token has. Paste the whole token again.';

/**
 * The token is exchanged once for the session cookie and dropped: the field is cleared and the value never
 * goes into a URL or storage. The form is handled here, so even a broken script cannot submit it into a URL.
 */
export function signInView(onSignedIn: (session: Session) => void, notice?: string): View {
  const errors = errorBox();
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'token-help token-error',
  });
  // Said by the form itself, with no request: never the token, which the field no longer holds either.
  const tokenError = h('p', { id: 'token-error', class: 'field-error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { method: 'post', action: '#', class: 'card narrow' },
    h('label', { for: 'token' }, 'Access token'),
    input,
    h(
      'p',
      { id: 'token-help', class: 'help' },
      'A short-lived bearer token for your workspace (for the local stack: ',
      h('code', {}, 'npm run token -- --workspace demo'),
      '). It is exchanged once for a session cookie and not kept.',
    ),
    tokenError,
    button,
    errors.element,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = asBearerToken(input.value);
    input.value = '';
    errors.clear();
    if (!token) {
      tokenError.textContent = MALFORMED;
      tokenError.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    tokenError.hidden = true;
    input.removeAttribute('aria-invalid');
    button.disabled = true;
    signIn(token)
      .then(onSignedIn)
      .catch((error: unknown) => errors.show(error, 'Sign-in failed'))
      .finally(() => {
        button.disabled = false;
      });
  });
  const element = h(
    'section',
    { 'aria-labelledby': 'page-title' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Sign in'),
    notice ? h('p', { class: 'notice', role: 'status' }, notice) : null,
    form,
  );
  return { element, dispose: () => undefined };
}
