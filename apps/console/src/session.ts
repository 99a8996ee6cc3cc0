import { ApiError, call, setCsrfToken } from './api';
import type { Session } from '@wrs/contracts/types';

/**
 * Sign-in trades the token for an HttpOnly `__Host-` session cookie and forgets the token. After a reload
 * the CSRF token comes from GET /sessions/current, so nothing is kept in storage.
 */
export async function currentSession(): Promise<Session | null> {
  try {
    const { body } = await call<Session>('GET', '/sessions/current');
    setCsrfToken(body.csrfToken);
    return body;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      return null;
    }
    throw error;
  }
}

export async function signIn(token: string): Promise<Session> {
  const { body } = await call<Session>('POST', '/sessions', { headers: { authorization: `Bearer ${token}` } });
  setCsrfToken(body.csrfToken);
  return body;
}

/**
 * Ends the session on the server. Throws when the server did not end it (no answer, a 5xx, 403
 * csrf_failed): the cookie and the session are still valid, so the caller stays signed in. A 401 means
 * there was no session left to end: signed out as well.
 */
export async function signOut(): Promise<void> {
  try {
    await call('DELETE', '/sessions/current');
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) {
      throw error;
    }
  }
  setCsrfToken(null);
}
