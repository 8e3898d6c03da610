import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { answer, api, onSignedOut } from './api/client';
import type { Session, SessionOperator } from './api/types';

interface SessionContextValue {
  /** The signed-in operator; `null` when signed out; `undefined` while the first check runs. */
  operator: SessionOperator | null | undefined;
  /** Whether the operator may make changes (role `admin`). */
  canChange: boolean;
  /** Why the console was signed out without asking (`Your session has ended: sign in again`), if it was. */
  endedMessage: string | undefined;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const SessionContext = createContext<SessionContextValue | null>(null);

/** Who is signed in (`GET session`), kept current: any 401 of the API signs the console out at once. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [endedMessage, setEndedMessage] = useState<string>();
  const session = useQuery({ queryKey: ['session'], queryFn: () => answer(api.GET('/session')), staleTime: Infinity, retry: false });

  useEffect(
    () =>
      onSignedOut((message) => {
        setEndedMessage(message);
        client.setQueryData<Session>(['session'], { operator: null });
        client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
      }),
    [client],
  );

  const signIn = useCallback(
    async (username: string, password: string) => {
      const signedIn = await answer(api.POST('/session', { body: { username, password } }));
      setEndedMessage(undefined);
      client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
      client.setQueryData<Session>(['session'], signedIn);
    },
    [client],
  );

  const signOut = useCallback(async () => {
    await answer(api.POST('/session/sign-out'));
    setEndedMessage(undefined);
    client.setQueryData<Session>(['session'], { operator: null });
    client.removeQueries({ predicate: (query) => query.queryKey[0] !== 'session' });
  }, [client]);

  const operator = session.data ? session.data.operator : session.isError ? null : undefined;
  const value = useMemo(
    () => ({ operator, canChange: operator?.role === 'admin', endedMessage, signIn, signOut }),
    [operator, endedMessage, signIn, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
