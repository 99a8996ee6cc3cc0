import { h } from './dom';
import type { Session } from '@wrs/contracts/types';

/**
 * Header (who is signed in, navigation, sign out) around the page; `signOutError` (a failed sign-out) is
 * shown above the page. The button is disabled while a sign-out is under way.
 */
export function layout(session: Session, main: HTMLElement, onSignOut: () => Promise<void>, signOutError: HTMLElement): HTMLElement {
  const signOut = h('button', { type: 'button', class: 'secondary' }, 'Sign out');
  signOut.addEventListener('click', () => {
    signOut.disabled = true;
    void onSignOut().finally(() => {
      signOut.disabled = false;
    });
  });
  return h(
    'div',
    { class: 'shell' },
    h(
      'header',
      { class: 'top' },
      h('a', { href: '/console/', 'data-route': '', class: 'brand' }, 'Workload Run Service'),
      h(
        'nav',
        { 'aria-label': 'Main' },
        h('a', { href: '/console/', 'data-route': '' }, 'Runs'),
        h('a', { href: '/console/new', 'data-route': '' }, 'New run'),
        h('a', { href: '/console/webhooks', 'data-route': '' }, 'Webhooks'),
      ),
      h(
        'div',
        { class: 'who' },
        h('span', {}, 'Workspace ', h('strong', { 'data-workspace': session.workspaceId }, session.workspaceId)),
        signOut,
      ),
    ),
    h('main', { id: 'main' }, signOutError, main),
  );
}
