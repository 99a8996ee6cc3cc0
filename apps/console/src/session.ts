import { ApiError, call, setCsrfToken } from './api';
import type { Session } from '@wrs/contracts/types';

/**
 * When this browser's session ends (its `expiresAt`), kept while it is signed in: not a credential, only
 * whether asking GET /sessions/current can be answered with a session. The cookie is HttpOnly, so the
 * page cannot see it; without this, every load of the sign-in page would make a request that fails with
 * 401, which the browser reports as an error in its console.
 */
const SESSION_ENDS_KEY = 'wrs.console.sessionExpiresAt';

/**
 * Sign-in trades the token for an HttpOnly `__Host-` session cookie and forgets the token. After a reload
 * the CSRF token comes from GET /sessions/current (kept in memory only), asked only while this browser
 * has a session that has not expired.
 */
export async function currentSession(): Promise<Session | null> {
  if (!mayBeSignedIn()) {
    return null;
  }
  try {
    const { body } = await call<Session>('GET', '/sessions/current');
    setCsrfToken(body.csrfToken);
    remember(body.expiresAt);
    return body;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      forgetSession();
      return null;
    }
    throw error;
  }
}

export async function signIn(token: string): Promise<Session> {
  const { body } = await call<Session>('POST', '/sessions', { headers: { authorization: `Bearer ${token}` } });
  setCsrfToken(body.csrfToken);
  remember(body.expiresAt);
  return body;
}

export async function signOut(): Promise<void> {
  try {
    await call('DELETE', '/sessions/current');
  } finally {
    setCsrfToken(null);
    forgetSession();
  }
}

/** The session ended (signed out, expired, revoked): the next load shows the sign-in form without asking. */
export function forgetSession(): void {
  try {
    localStorage.removeItem(SESSION_ENDS_KEY);
  } catch {
    // storage disabled: nothing kept
  }
}

function mayBeSignedIn(): boolean {
  try {
    const endsAt = localStorage.getItem(SESSION_ENDS_KEY);
    return endsAt !== null && Date.parse(endsAt) > Date.now();
  } catch {
    return true; // storage disabled: ask
  }
}

function remember(expiresAt: string): void {
  try {
    localStorage.setItem(SESSION_ENDS_KEY, expiresAt);
  } catch {
    // storage disabled: the next load asks anyway
  }
}
