import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { formatTime, Notice, Page, RoleRequired, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { type ApiKey, KEY_MANAGER_ROLES } from '../types.ts';

const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', builder: 'Builder', member: 'Member' };

/**
 * Who made a key, with their role then: a key can do what that role can (a Builder's key
 * cannot manage webhooks or delete Agents or recordings), and it is revoked when they leave.
 */
function creatorText(key: ApiKey): string {
  if (!key.created_by) return 'Operator tool (full access)';
  const who = key.created_by.email ?? key.created_by.user_id;
  return `${who} (${ROLE_LABELS[key.created_by.role]})`;
}

/**
 * API keys (Config › Integrations): create with a Label, the full key shown once in a
 * banner, the Issued keys table with prefix, status and last use, and Revoke.
 */
export function ApiKeysPage() {
  const me = useOperatorSession();
  if (!hasRole(me, KEY_MANAGER_ROLES)) {
    return (
      <RoleRequired title="API keys">
        Key management requires an organization Owner or Admin (or Builder).
      </RoleRequired>
    );
  }
  return (
    <Page title="API keys">
      <KeyManager environment={me.environment} />
    </Page>
  );
}

function KeyManager(props: { environment: string }) {
  const keys = useLoad(() => call<{ keys: ApiKey[] }>('GET', '/keys').then((r) => r.keys));
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState<{ label: string; secret: string }>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await call<{ key: ApiKey & { secret: string } }>('POST', '/keys', {
        label: label.trim(),
      });
      setCreated({ label: answer.key.label, secret: answer.key.secret });
      setLabel('');
      keys.reload();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (key: ApiKey) => {
    setError(undefined);
    try {
      await call('POST', `/keys/${encodeURIComponent(key.id)}/revoke`);
      keys.reload();
    } catch (caught) {
      setError(describeError(caught));
    }
  };

  return (
    <>
      <p className="muted">
        Keys created here are for the {props.environment} environment, the one this address serves.
        A key is shown once, when it is created; only its hash is kept, so a lost key is replaced,
        never recovered. Keep keys on your servers: never in browser or mobile code, never in logs.
        A key can do what its creator’s role can: keys made by a Builder cannot manage webhooks or
        delete Agents or recordings. Removing a member revokes the keys they created.
      </p>
      {created ? (
        <Notice kind="success" onDismiss={() => setCreated(undefined)}>
          <strong>Key “{created.label}” created.</strong> Copy it now: it is not shown again.
          <code className="secret" data-testid="new-key">
            {created.secret}
          </code>
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(created.secret).catch(() => {})}
          >
            Copy
          </button>
        </Notice>
      ) : null}
      <form className="inline-form" onSubmit={create}>
        <label>
          Label
          <input
            name="label"
            maxLength={100}
            required
            value={label}
            onChange={(event) => setLabel(event.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={busy || label.trim() === ''}>
          Create key
        </button>
      </form>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <h2>Issued keys</h2>
      {keys.error ? <Notice kind="error">{keys.error}</Notice> : null}
      <table>
        <thead>
          <tr>
            <th>Label</th>
            <th>Prefix</th>
            <th>Environment</th>
            <th>Status</th>
            <th>Created</th>
            <th>Created by</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <td>{key.label}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>{key.environment}</td>
              <td>
                <span className={`badge badge-${key.status}`}>{key.status}</span>
              </td>
              <td>{formatTime(key.created_at)}</td>
              <td data-testid="key-creator">{creatorText(key)}</td>
              <td>{key.last_used_at ? formatTime(key.last_used_at) : 'Never'}</td>
              <td>
                {key.status === 'active' ? (
                  <button type="button" className="danger" onClick={() => void revoke(key)}>
                    Revoke
                  </button>
                ) : (
                  <span className="muted">Revoked {formatTime(key.revoked_at)}</span>
                )}
              </td>
            </tr>
          ))}
          {keys.data && keys.data.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                No keys yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </>
  );
}
