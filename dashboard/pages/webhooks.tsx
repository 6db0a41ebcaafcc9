import { useState } from 'react';
import { call, describeError } from '../api.ts';
import { Notice, Page, RoleRequired, useLoad } from '../components.tsx';
import { hasRole, useOperatorSession } from '../operator-session.ts';
import { Deliveries } from './webhooks/deliveries.tsx';
import { type EndpointFields, EndpointForm } from './webhooks/endpoint-form.tsx';
import { EndpointsTable } from './webhooks/endpoints-table.tsx';
import { SecretNotice, type ShownSecret } from './webhooks/secret-notice.tsx';
import {
  WEBHOOK_MANAGER_ROLES,
  type WebhookEndpoint,
  type WebhookEndpointCreated,
  type WebhookList,
  webhookPath,
} from './webhooks/webhook-types.ts';
import './webhooks/webhooks.css';

/**
 * Webhooks (Config › Webhooks): the endpoints of this environment that receive Agent
 * session events, each with its Enabled switch, Edit, Send test event, Rotate secret and
 * Delete; Add endpoint, whose signing secret is shown once; and an endpoint's deliveries.
 * For Owners and Admins.
 */
export function WebhooksPage() {
  const me = useOperatorSession();
  if (!hasRole(me, WEBHOOK_MANAGER_ROLES)) {
    return (
      <RoleRequired title="Webhooks">
        Webhooks are managed by an organization Owner or Admin.
      </RoleRequired>
    );
  }
  return (
    <Page title="Webhooks">
      <WebhookManager environment={me.environment} />
    </Page>
  );
}

type OpenForm = { kind: 'add' } | { kind: 'edit'; endpoint: WebhookEndpoint };

function WebhookManager(props: { environment: string }) {
  const list = useLoad(() => call<WebhookList>('GET', '/webhooks'));
  const [form, setForm] = useState<OpenForm>();
  const [shown, setShown] = useState<ShownSecret>();
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<string>();
  const [busyId, setBusyId] = useState<string>();
  const [selectedId, setSelectedId] = useState<string>();
  const [refreshKey, setRefreshKey] = useState(0);

  /** Runs one change of `id` ('new' for an add); true when it succeeded (the list is read again). */
  const act = async (id: string, run: () => Promise<void>): Promise<boolean> => {
    setBusyId(id);
    setError(undefined);
    setMessage(undefined);
    try {
      await run();
      list.reload();
      return true;
    } catch (caught) {
      setError(describeError(caught));
      return false;
    } finally {
      setBusyId(undefined);
    }
  };

  const create = (fields: EndpointFields) =>
    act('new', async () => {
      const answer = await call<{ webhook: WebhookEndpointCreated }>('POST', '/webhooks', fields);
      setShown({ url: answer.webhook.url, secret: answer.webhook.secret, rotated: false });
      setForm(undefined);
    });
  const save = (endpoint: WebhookEndpoint, fields: EndpointFields) =>
    act(endpoint.id, async () => {
      await call('PATCH', webhookPath(endpoint.id), fields);
      setForm(undefined);
    });
  const setEnabled = (endpoint: WebhookEndpoint, enabled: boolean) =>
    act(endpoint.id, () => call('PATCH', webhookPath(endpoint.id), { enabled }));
  const sendTest = (endpoint: WebhookEndpoint) =>
    act(endpoint.id, async () => {
      await call('POST', webhookPath(endpoint.id, '/test'));
      setSelectedId(endpoint.id);
      setRefreshKey((n) => n + 1);
      setMessage(`A test event was queued for ${endpoint.url}.`);
    });
  const rotate = (endpoint: WebhookEndpoint) => {
    const question = `Rotate the signing secret of ${endpoint.url}? For 24 hours deliveries are signed with both the new and the current secret; rotate again to stop the current one at once.`;
    if (!window.confirm(question)) return;
    void act(endpoint.id, async () => {
      const answer = await call<{ webhook: WebhookEndpointCreated }>(
        'POST',
        webhookPath(endpoint.id, '/rotate-secret'),
      );
      setShown({ url: answer.webhook.url, secret: answer.webhook.secret, rotated: true });
    });
  };
  const remove = (endpoint: WebhookEndpoint) => {
    const question = `Delete the endpoint ${endpoint.url}? Its deliveries, sent or not, are deleted with it.`;
    if (!window.confirm(question)) return;
    void act(endpoint.id, async () => {
      await call('DELETE', webhookPath(endpoint.id));
      if (selectedId === endpoint.id) setSelectedId(undefined);
      if (form?.kind === 'edit' && form.endpoint.id === endpoint.id) setForm(undefined);
      setMessage(`The endpoint ${endpoint.url} was deleted.`);
    });
  };

  const endpoints = list.data?.webhooks ?? [];
  const eventTypes = list.data?.event_types ?? [];
  const selected = endpoints.find((endpoint) => endpoint.id === selectedId);
  return (
    <>
      <p className="muted">
        Endpoints of the {props.environment} environment, the one this address serves. Each event an
        endpoint subscribes to is sent to it as a signed POST (Standard Webhooks) and retried until
        it is accepted or its attempts run out.
      </p>
      {shown ? <SecretNotice shown={shown} onDismiss={() => setShown(undefined)} /> : null}
      {message ? (
        <Notice kind="success" onDismiss={() => setMessage(undefined)}>
          {message}
        </Notice>
      ) : null}
      {error ? (
        <Notice kind="error" onDismiss={() => setError(undefined)}>
          {error}
        </Notice>
      ) : null}
      {list.error ? <Notice kind="error">{list.error}</Notice> : null}
      {form?.kind === 'add' ? (
        <EndpointForm
          title="Add endpoint"
          submitLabel="Create endpoint"
          eventTypes={eventTypes}
          busy={busyId === 'new'}
          onSubmit={(fields) => void create(fields)}
          onCancel={() => setForm(undefined)}
        />
      ) : form?.kind === 'edit' ? (
        <EndpointForm
          key={form.endpoint.id}
          title="Edit endpoint"
          submitLabel="Save changes"
          eventTypes={eventTypes}
          endpoint={form.endpoint}
          busy={busyId === form.endpoint.id}
          onSubmit={(fields) => void save(form.endpoint, fields)}
          onCancel={() => setForm(undefined)}
        />
      ) : (
        <p>
          <button
            type="button"
            className="primary"
            disabled={!list.data}
            onClick={() => setForm({ kind: 'add' })}
          >
            Add endpoint
          </button>
        </p>
      )}
      <h2>Endpoints</h2>
      {list.data ? (
        <EndpointsTable
          endpoints={endpoints}
          selectedId={selectedId}
          busyId={busyId}
          onDeliveries={(endpoint) => setSelectedId(endpoint.id)}
          onEdit={(endpoint) => setForm({ kind: 'edit', endpoint })}
          onEnabled={(endpoint, enabled) => void setEnabled(endpoint, enabled)}
          onTest={(endpoint) => void sendTest(endpoint)}
          onRotate={rotate}
          onDelete={remove}
        />
      ) : list.loading ? (
        <p className="loading">Loading…</p>
      ) : null}
      {selected ? (
        <Deliveries key={selected.id} endpoint={selected} refreshKey={refreshKey} />
      ) : null}
    </>
  );
}
