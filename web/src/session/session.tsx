/**
 * Who is signed in. On load the dashboard asks `GET /api/v1/session`: a 401 shows the signed-out
 * screens, a session keeps its CSRF token in memory (never in storage) for the client to send.
 */
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { api, onSessionEnded, setCsrfToken } from '../api/client';
import { type Problem, settle } from '../api/problem';
import type { Session } from '../api/types';

export type SessionState =
  | { kind: 'loading' }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; session: Session }
  | { kind: 'unavailable'; problem: Problem };

interface SessionContextValue {
  state: SessionState;
  /** Asks the API again who is signed in (after sign-in or sign-up). */
  refresh(): Promise<void>;
  signOut(): Promise<Problem | null>;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ kind: 'loading' });

  const refresh = useCallback(async () => {
    const outcome = await settle(api.GET('/api/v1/session'));
    if (outcome.ok) {
      setCsrfToken(outcome.data.csrf_token);
      setState({ kind: 'signed-in', session: outcome.data });
    } else if (outcome.status === 401) {
      setCsrfToken(null);
      setState({ kind: 'signed-out' });
    } else {
      setState({ kind: 'unavailable', problem: outcome.problem });
    }
  }, []);

  const signOut = useCallback(async () => {
    const outcome = await settle(api.DELETE('/api/v1/session'));
    // 401: the session had already ended; either way the person is signed out now.
    if (!outcome.ok && outcome.status !== 401) return outcome.problem;
    setCsrfToken(null);
    setState({ kind: 'signed-out' });
    return null;
  }, []);

  useEffect(() => {
    onSessionEnded(() => {
      setCsrfToken(null);
      setState({ kind: 'signed-out', notice: 'Your session has ended. Sign in again to continue.' });
    });
    void refresh();
  }, [refresh]);

  const value = useMemo(() => ({ state, refresh, signOut }), [state, refresh, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The signed-in session; only for pages rendered inside the signed-in app. */
export function useSignedIn(): Session {
  const { state } = useSession();
  if (state.kind !== 'signed-in') throw new Error('useSignedIn while not signed in');
  return state.session;
}
