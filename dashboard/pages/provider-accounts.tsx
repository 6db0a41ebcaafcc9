import { type FormEvent, useState } from 'react';
import { call, describeError } from '../api.ts';
import { formatTime, Notice, Page, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { type ProviderAccount, VOICE_MANAGER_ROLES } from '../types.ts';
import { PROVIDER_NAMES, VENDOR_PROVIDERS, type VendorProvider } from './create-voice/models.ts';

/**
 * Provider accounts (Config): the workspace's own API keys at ElevenLabs and Fish Audio,
 * used to clone, import and synthesize. A key is sent once and never shown again, only its
 * last four characters. Owner and Admin only.
 */
export function ProviderAccountsPage() {
  const me = useOperatorSession();
  if (!hasRole(me, VOICE_MANAGER_ROLES)) {
    return (
      <Page title="Provider accounts">
        <Notice kind="info">Provider accounts are managed by a workspace Owner or Admin.</Notice>
      </Page>
    );
  }
  return (
    <Page title="Provider accounts">
      <AccountManager />
    </Page>
  );
}

function AccountManager() {
  const accounts = useLoad(() =>
    call<{ provider_accounts: ProviderAccount[] }>('GET', '/provider-accounts').then(
      (answer) => answer.provider_accounts,
    ),
  );
  const [provider, setProvider] = useState<VendorProvider>('elevenlabs');
  const [label, setLabel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [added, setAdded] = useState<ProviderAccount>();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setAdded(undefined);
    try {
      const answer = await call<{ provider_account: ProviderAccount }>(
        'POST',
        '/provider-accounts',
        { provider, label: label.trim(), api_key: apiKey.trim() },
      );
      setAdded(answer.provider_account);
      setLabel('');
      accounts.reload();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      // The key leaves the page either way: it is never kept or shown back.
      setApiKey('');
      setBusy(false);
    }
  };

  const remove = async (account: ProviderAccount) => {
    setError(undefined);
    setAdded(undefined);
    try {
      await call('DELETE', `/provider-accounts/${encodeURIComponent(account.id)}`);
      accounts.reload();
    } catch (caught) {
      setError(`${account.label} was not removed: ${describeError(caught)}`);
    }
  };

  return (
    <>
      <p className="muted">
        Your workspace’s API keys at voice vendors. Clones and imports on an account use its key;
        without one, clones use the platform’s account. Keys are stored sealed and never shown
        again: only their last four characters are.
      </p>
      {added ? (
        <Notice kind="success" onDismiss={() => setAdded(undefined)}>
          Added {added.label} ({PROVIDER_NAMES[added.provider]}, key ••••{added.key_last4}).
        </Notice>
      ) : null}
      <form className="inline-form" onSubmit={add}>
        <label>
          Provider
          <select
            name="provider"
            value={provider}
            onChange={(event) => setProvider(event.target.value as VendorProvider)}
          >
            {VENDOR_PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {PROVIDER_NAMES[p]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label
          <input
            name="label"
            maxLength={100}
            value={label}
            onChange={(event) => setLabel(event.target.value)}
          />
        </label>
        <label>
          API key
          <input
            type="password"
            name="api-key"
            autoComplete="off"
            maxLength={512}
            value={apiKey}
            onChange={(event) => setApiKey(event.target.value)}
          />
        </label>
        <button
          type="submit"
          className="primary"
          disabled={busy || label.trim() === '' || apiKey.trim() === ''}
        >
          Add account
        </button>
      </form>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <h2>Accounts</h2>
      {accounts.error ? <Notice kind="error">{accounts.error}</Notice> : null}
      <table>
        <thead>
          <tr>
            <th>Provider</th>
            <th>Label</th>
            <th>Key</th>
            <th>Added</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(accounts.data ?? []).map((account) => (
            <tr key={account.id} data-account-id={account.id}>
              <td>{PROVIDER_NAMES[account.provider]}</td>
              <td>{account.label}</td>
              <td>
                <code>••••{account.key_last4}</code>
              </td>
              <td>{formatTime(account.created_at)}</td>
              <td>
                <button type="button" className="danger" onClick={() => void remove(account)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
          {accounts.data && accounts.data.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No provider accounts yet: clones use the platform’s account.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </>
  );
}
