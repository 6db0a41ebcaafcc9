import { type FormEvent, useState } from 'react';
import { call } from '../../api.ts';
import { Notice } from '../../components.tsx';
import type { Voice, VoiceRoute } from '../../types.ts';
import { ClonePanel } from './clone-panel.tsx';
import { providerLabel, StateBadge } from './route-labels.tsx';
import { useAction, voicePath } from './use-action.ts';

const DEFAULT_ALWAYS_ENABLED =
  'The default route is always enabled; make another route the default to hide this one.';

/**
 * Routes: each provider-and-model pairing with its state and why it Failed or was Blocked,
 * the Default marker and the Enabled switch (the default route's is fixed on). Owner and
 * Admin make a route the default, refresh an Update available one, block and unblock, and
 * clone to further providers.
 */
export function RoutesTab(props: { voice: Voice; canManage: boolean; onChanged: () => void }) {
  const { voice, canManage } = props;
  const action = useAction(props.onChanged);
  const [blocking, setBlocking] = useState<string>();
  const route = (id: string, rest = '') =>
    voicePath(voice.id, `/routes/${encodeURIComponent(id)}${rest}`);

  const setEnabled = (target: VoiceRoute, enabled: boolean) =>
    action.run(() => call('PATCH', route(target.id), { enabled }));
  const makeDefault = (target: VoiceRoute) =>
    action.run(() => call('PUT', voicePath(voice.id, '/default-route'), { route_id: target.id }));
  const refresh = (target: VoiceRoute) =>
    action.run(() => call('POST', route(target.id, '/refresh')));
  const unblock = (target: VoiceRoute) =>
    action.run(() => call('POST', route(target.id, '/unblock')));
  const block = async (target: VoiceRoute, reason: string) => {
    if (await action.run(() => call('POST', route(target.id, '/block'), { reason }))) {
      setBlocking(undefined);
    }
  };

  return (
    <>
      {action.error ? (
        <Notice kind="error" onDismiss={action.clearError}>
          {action.error}
        </Notice>
      ) : null}
      <table className="routes-table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>Model</th>
            <th>Provider voice id</th>
            <th>State</th>
            <th>Default</th>
            <th>Enabled</th>
            {canManage ? <th /> : null}
          </tr>
        </thead>
        <tbody>
          {voice.routes.map((r) => (
            <tr key={r.id} data-route-id={r.id} data-provider={r.provider}>
              <td>{providerLabel(r.provider)}</td>
              <td>
                <code>{r.model}</code>
              </td>
              <td>
                {r.provider_voice_id ? (
                  <code>{r.provider_voice_id}</code>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td>
                <StateBadge state={r.state} />
                <StateReason route={r} />
              </td>
              <td>{r.is_default ? <span className="badge badge-default">Default</span> : null}</td>
              <td>
                {canManage ? (
                  <label
                    className="switch"
                    title={r.is_default ? DEFAULT_ALWAYS_ENABLED : undefined}
                  >
                    <input
                      type="checkbox"
                      role="switch"
                      aria-checked={r.enabled}
                      aria-label={`Enabled: ${providerLabel(r.provider)}`}
                      checked={r.enabled}
                      disabled={r.is_default || action.busy}
                      title={
                        r.is_default
                          ? DEFAULT_ALWAYS_ENABLED
                          : r.enabled
                            ? 'Hide this route from clients (it is kept)'
                            : 'Offer this route to clients again'
                      }
                      onChange={(event) => void setEnabled(r, event.target.checked)}
                    />
                    <span>{r.enabled ? 'Enabled' : 'Hidden'}</span>
                  </label>
                ) : (
                  <span>{r.enabled ? 'Enabled' : 'Hidden'}</span>
                )}
              </td>
              {canManage ? (
                <td>
                  <div className="row-actions">
                    {blocking === r.id ? (
                      <BlockForm
                        busy={action.busy}
                        onBlock={(reason) => void block(r, reason)}
                        onCancel={() => setBlocking(undefined)}
                      />
                    ) : (
                      <>
                        {!r.is_default &&
                        (r.state === 'ready' || r.state === 'update_available') ? (
                          <button
                            type="button"
                            className="small"
                            disabled={action.busy}
                            onClick={() => void makeDefault(r)}
                          >
                            Make default
                          </button>
                        ) : null}
                        {r.state === 'update_available' ? (
                          <button
                            type="button"
                            className="small"
                            disabled={action.busy}
                            onClick={() => void refresh(r)}
                          >
                            Refresh
                          </button>
                        ) : null}
                        {r.state === 'blocked' ? (
                          <button
                            type="button"
                            className="small"
                            disabled={action.busy}
                            onClick={() => void unblock(r)}
                          >
                            Unblock
                          </button>
                        ) : r.state !== 'cloning' ? (
                          <button
                            type="button"
                            className="small danger"
                            disabled={action.busy}
                            onClick={() => setBlocking(r.id)}
                          >
                            Block
                          </button>
                        ) : null}
                      </>
                    )}
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
          {voice.routes.length === 0 ? (
            <tr>
              <td colSpan={canManage ? 7 : 6} className="muted">
                This voice has no routes yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {canManage ? <ClonePanel voice={voice} onSubmitted={props.onChanged} /> : null}
    </>
  );
}

/** Why a route Failed, or who Blocked it and why. */
function StateReason(props: { route: VoiceRoute }) {
  const { route } = props;
  if (route.state === 'failed' && route.failure_summary) {
    return <div className="state-reason">{route.failure_summary}</div>;
  }
  if (route.state === 'blocked') {
    const by = route.blocked_by === 'provider' ? 'the provider' : 'an operator';
    return (
      <div className="state-reason">
        Blocked by {by}
        {route.failure_summary ? `: ${route.failure_summary}` : ''}
      </div>
    );
  }
  return null;
}

/** Asks why a route is blocked; the reason is shown beside its Blocked state. */
function BlockForm(props: {
  busy: boolean;
  onBlock: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim() !== '') props.onBlock(reason.trim());
  };
  return (
    <form className="block-form" onSubmit={submit}>
      <input
        aria-label="Reason for blocking"
        placeholder="Reason (for example: consent withdrawn)"
        maxLength={500}
        required
        value={reason}
        onChange={(event) => setReason(event.target.value)}
      />
      <button type="submit" className="danger" disabled={props.busy || reason.trim() === ''}>
        Block route
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  );
}
