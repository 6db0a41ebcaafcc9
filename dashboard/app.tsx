import { useCallback, useEffect, useState } from 'react';
import { call, describeError, OperatorApiError, whenSignedOut } from './api.ts';
import { Notice, Page } from './components.tsx';
import { Layout } from './layout.tsx';
import { OperatorSessionContext } from './operator-session.ts';
import { SignIn } from './pages/sign-in.tsx';
import { navigate, usePath } from './router.ts';
import { HOME_PATH, matchRoute } from './routes.tsx';
import type { Me } from './types.ts';

type SessionState =
  | { kind: 'loading' }
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; me: Me }
  | { kind: 'failed'; message: string };

/** The dashboard: sign-in until there is a session, then the page for the path. */
export function App() {
  const [session, setSession] = useState<SessionState>({ kind: 'loading' });
  const path = usePath();

  const loadSession = useCallback(async () => {
    try {
      setSession({ kind: 'signed-in', me: await call<Me>('GET', '/me') });
    } catch (error) {
      if (error instanceof OperatorApiError && error.status === 401) {
        setSession({ kind: 'signed-out' });
      } else {
        setSession({ kind: 'failed', message: describeError(error) });
      }
    }
  }, []);

  useEffect(() => {
    whenSignedOut(() => setSession({ kind: 'signed-out' }));
    void loadSession();
    return () => whenSignedOut(undefined);
  }, [loadSession]);

  useEffect(() => {
    if (session.kind === 'signed-in' && (path === '/' || path === '/sign-in')) {
      navigate(HOME_PATH, { replace: true });
    }
  }, [session.kind, path]);

  if (session.kind === 'loading') return <div className="loading">Loading…</div>;
  if (session.kind === 'failed') {
    return (
      <main className="sign-in">
        <Notice kind="error">{session.message}</Notice>
      </main>
    );
  }
  if (session.kind === 'signed-out') return <SignIn onSignedIn={() => void loadSession()} />;

  const signOut = async () => {
    await call('POST', '/sign-out').catch(() => undefined);
    setSession({ kind: 'signed-out' });
  };
  const matched = matchRoute(path);
  return (
    <OperatorSessionContext.Provider value={session.me}>
      <Layout me={session.me} path={path} onSignOut={() => void signOut()}>
        {matched ? (
          matched.route.render(matched.params)
        ) : (
          <Page title="Not found">
            <p>No dashboard page lives at this address.</p>
          </Page>
        )}
      </Layout>
    </OperatorSessionContext.Provider>
  );
}
