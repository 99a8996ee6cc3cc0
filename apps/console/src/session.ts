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

export async function signOut(): Promise<void> {
  try {
    await call('DELETE', '/sessions/current');
  } finally {
    setCsrfToken(null);
  }
}
