import { useState, type FormEvent } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { ErrorText } from '#web/components/feedback';
import { PageTitle } from '#web/components/page-title';
import { useSession } from '#web/session';

/** Only console paths are followed after signing in (`?next=/devices?tenant=acme`), never another site. */
function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') ? next : CONSOLE_PAGES.overview;
}

/** Sign in with an operator account (created with `firmledger operator-user create`). */
export function SignInPage() {
  const { operator, signIn, endedMessage } = useSession();
  const [params] = useSearchParams();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  if (operator) return <Navigate to={safeNext(params.get('next'))} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(username, password);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <PageTitle title="Sign in to the firmledger console" />
      {endedMessage ? <p className="note">{endedMessage}</p> : null}
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="username">Username</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorText error={error} id="sign-in-error" />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted">
        Accounts are made on the server: <code>firmledger operator-user create &lt;name&gt; --role admin</code>.
      </p>
    </main>
  );
}
