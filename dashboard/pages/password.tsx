import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { Notice, Page } from '../components.tsx';

/** Shortest password the operator API accepts (src/operator/passwords.ts). */
const MIN_CHARS = 12;

/**
 * Password (`/password`, from the sidebar): the signed-in member changes their own password,
 * for instance the one generated when they were added. Their other sessions end.
 */
export function PasswordPage() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState(false);
  const mismatch = repeat !== '' && repeat !== next;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await call('POST', '/me/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      setRepeat('');
      setDone(true);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Password">
      <p className="muted">
        Your password signs you in to every workspace you belong to. Changing it signs you out
        everywhere else.
      </p>
      {done ? (
        <Notice kind="success" onDismiss={() => setDone(false)}>
          Your password was changed.
        </Notice>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form className="form-grid" aria-label="Change password" onSubmit={submit}>
        <label>
          Current password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(event) => setCurrent(event.target.value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            autoComplete="new-password"
            required
            minLength={MIN_CHARS}
            value={next}
            onChange={(event) => setNext(event.target.value)}
          />
        </label>
        <label>
          Repeat the new password
          <input
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(event) => setRepeat(event.target.value)}
          />
        </label>
        {mismatch ? <p className="muted">The two new passwords differ.</p> : null}
        <div>
          <button
            type="submit"
            className="primary"
            disabled={busy || mismatch || next.length < MIN_CHARS || current === ''}
          >
            Change password
          </button>
        </div>
      </form>
    </Page>
  );
}
