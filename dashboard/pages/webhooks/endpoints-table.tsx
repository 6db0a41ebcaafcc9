import { formatTime } from '../../components.tsx';
import type { WebhookEndpoint } from './webhook-types.ts';

/** What a row's buttons and switch ask of the page. */
export interface EndpointActions {
  onDeliveries: (endpoint: WebhookEndpoint) => void;
  onEdit: (endpoint: WebhookEndpoint) => void;
  onEnabled: (endpoint: WebhookEndpoint, enabled: boolean) => void;
  onTest: (endpoint: WebhookEndpoint) => void;
  onRotate: (endpoint: WebhookEndpoint) => void;
  onDelete: (endpoint: WebhookEndpoint) => void;
}

/**
 * The environment's endpoints: URL and description, the events each receives, its Enabled
 * switch, when it was added, and its actions. `busyId` names the endpoint being changed.
 */
export function EndpointsTable(
  props: {
    endpoints: WebhookEndpoint[];
    selectedId: string | undefined;
    busyId: string | undefined;
  } & EndpointActions,
) {
  return (
    <table aria-label="Endpoints" className="webhook-endpoints">
      <thead>
        <tr>
          <th>URL</th>
          <th>Events</th>
          <th>Enabled</th>
          <th>Created</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {props.endpoints.map((endpoint) => {
          const busy = props.busyId === endpoint.id;
          return (
            <tr
              key={endpoint.id}
              data-webhook-id={endpoint.id}
              className={endpoint.id === props.selectedId ? 'webhook-selected' : undefined}
            >
              <td>
                <code className="webhook-url">{endpoint.url}</code>
                {endpoint.description ? <div className="muted">{endpoint.description}</div> : null}
              </td>
              <td>
                {endpoint.events.map((type) => (
                  <div key={type}>
                    <code>{type}</code>
                  </div>
                ))}
              </td>
              <td>
                <label className="switch">
                  <input
                    type="checkbox"
                    role="switch"
                    aria-checked={endpoint.enabled}
                    aria-label={`Enabled: ${endpoint.url}`}
                    checked={endpoint.enabled}
                    disabled={busy}
                    onChange={(event) => props.onEnabled(endpoint, event.target.checked)}
                  />
                  <span>{endpoint.enabled ? 'Enabled' : 'Disabled'}</span>
                </label>
              </td>
              <td>{formatTime(endpoint.created_at)}</td>
              <td>
                <div className="row-actions">
                  <button type="button" onClick={() => props.onDeliveries(endpoint)}>
                    Deliveries
                  </button>
                  <button type="button" disabled={busy} onClick={() => props.onEdit(endpoint)}>
                    Edit
                  </button>
                  <button type="button" disabled={busy} onClick={() => props.onTest(endpoint)}>
                    Send test event
                  </button>
                  <button type="button" disabled={busy} onClick={() => props.onRotate(endpoint)}>
                    Rotate secret
                  </button>
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => props.onDelete(endpoint)}
                  >
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          );
        })}
        {props.endpoints.length === 0 ? (
          <tr>
            <td colSpan={5} className="muted">
              No endpoints yet.
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
