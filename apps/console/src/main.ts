import { setCsrfToken, whenSessionEnds } from './api';
import { fill, h } from './dom';
import { layout } from './layout';
import { currentSession, signOut } from './session';
import type { Session } from '@wrs/contracts/types';
import { createRunView, forgetLastImage } from './views/create-run';
import { errorBox } from './views/error-box';
import { runPageView } from './views/run-page';
import { runsListView } from './views/runs-list';
import { signInView } from './views/sign-in';
import { webhooksView } from './views/webhooks';
import type { View } from './views/view';

/**
 * The console's shell: who is signed in, and which page the URL names (/console/, /console/new,
 * /console/runs/<id>, /console/webhooks). Links are real links; the router only saves the page reload.
 */
const root = document.getElementById('app') as HTMLElement;
let session: Session | null = null;
let current: View | null = null;
/** A sign-out the server did not carry out: shown above the page, which stays signed in. */
const signOutErrors = errorBox();

function show(view: View, focus: boolean): void {
  current?.dispose();
  current = view;
  signOutErrors.clear();
  fill(root, session ? layout(session, view.element, end, signOutErrors.element) : h('main', { id: 'main' }, view.element));
  if (focus) {
    // Keyboard and screen-reader users land on the new page's heading, not at the top of the document.
    root.querySelector<HTMLElement>('h1')?.focus();
  }
}

function route(focus = true, notice?: string): void {
  if (!session) {
    show(signInView(signedIn, notice), focus);
    return;
  }
  const path = location.pathname.replace(/^\/console/, '') || '/';
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run?.[1]) {
    show(runPageView(decodedSegment(run[1])), focus);
  } else if (path === '/new') {
    show(createRunView(navigate), focus);
  } else if (path === '/webhooks') {
    show(webhooksView(), focus);
  } else {
    show(runsListView(location.search, navigate), focus);
  }
}

/** A path segment as typed; a malformed escape (`%E0`) is kept as it is, so the page says "not found", not "unreachable". */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function navigate(path: string, options: { replace?: boolean; state?: unknown } = {}): void {
  if (options.replace) {
    history.replaceState(options.state ?? null, '', path);
  } else {
    history.pushState(options.state ?? null, '', path);
  }
  route();
}

/**
 * No session any more (signed out, ended by the server, or none at load): forget what the last one left in
 * this browser. It may be shared: the next person does not get this user's image (maybe a private registry's).
 */
function forgetSession(): void {
  session = null;
  setCsrfToken(null);
  forgetLastImage();
}

function signedIn(next: Session): void {
  session = next;
  route();
}

async function end(): Promise<void> {
  signOutErrors.clear();
  try {
    await signOut();
  } catch (error) {
    // Not signed out (no answer, a 5xx, 403): the cookie and the session are still valid, so say so.
    signOutErrors.show(error, 'Sign-out failed; you are still signed in');
    return;
  }
  forgetSession();
  route(true, 'You are signed out.');
}

document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[data-route]');
  if (!(link instanceof HTMLAnchorElement) || event.defaultPrevented || event.button !== 0) {
    return;
  }
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
    return;
  }
  event.preventDefault();
  navigate(link.pathname + link.search);
});
window.addEventListener('popstate', () => route());
whenSessionEnds(() => {
  if (session) {
    forgetSession();
    route(true, 'Your session has ended; sign in again.');
  }
});

currentSession()
  .then((found) => {
    if (found) {
      session = found;
    } else {
      // Ended while no page was open (expired, say): the image was not forgotten then.
      forgetSession();
    }
    route(false);
  })
  .catch((error: unknown) => {
    const errors = errorBox();
    errors.show(error, 'The console could not reach the service');
    fill(root, h('main', { id: 'main' }, h('h1', {}, 'Workload Run Service console'), errors.element));
  });
