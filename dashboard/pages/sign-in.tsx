import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { Notice } from '../components.tsx';
import type { Member } from '../types.ts';

/** Email and password of a workspace member (set with `awp member set-password`). */
export function SignIn(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await call<{ member: Member }>('POST', '/sign-in', { email, password });
      props.onSignedIn();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit}>
        <h1>Sign in</h1>
        <p className="muted">The AWP operator dashboard.</p>
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
