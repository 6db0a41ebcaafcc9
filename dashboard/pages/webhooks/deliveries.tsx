import { Fragment, useCallback, useEffect, useState } from 'react';
import { call, describeError } from '../../api.ts';
import { formatTime, Notice } from '../../components.tsx';
import {
  type DeliveryPage,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookPath,
} from './webhook-types.ts';

/** One page of an endpoint's deliveries, older than `cursor` when given. */
function fetchPage(endpointId: string, cursor?: string): Promise<DeliveryPage> {
  const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
  return call<DeliveryPage>('GET', webhookPath(endpointId, `/deliveries${query}`));
}

/** The last attempt: its HTTP status, or why no answer came; a dash before the first. */
function lastOutcome(delivery: WebhookDelivery): string {
  const parts = [
    delivery.last_status === null ? '' : `HTTP ${delivery.last_status}`,
    delivery.last_error ?? '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? parts.join(' · ') : '—';
}

/**
 * An endpoint's deliveries, newest first, a page at a time with Load older; Retry on a
 * failed one sends it again now; View payload shows the exact body sent. `refreshKey`
 * changing reads the first page again (a test event was just queued).
 */
export function Deliveries(props: { endpoint: WebhookEndpoint; refreshKey: number }) {
  const endpointId = props.endpoint.id;
  const [rows, setRows] = useState<WebhookDelivery[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [opened, setOpened] = useState<string>();
  const [retrying, setRetrying] = useState<string>();

  const loadFirst = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await fetchPage(endpointId);
      setRows(page.deliveries);
      setCursor(page.next_cursor);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setLoading(false);
    }
  }, [endpointId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new refreshKey reads the list again
  useEffect(() => {
    void loadFirst();
  }, [loadFirst, props.refreshKey]);

  const loadOlder = async () => {
    if (!cursor || loading) return;
    setLoading(true);
    setError(undefined);
    try {
      const page = await fetchPage(endpointId, cursor);
      setRows((shown) => [...(shown ?? []), ...page.deliveries]);
      setCursor(page.next_cursor);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setLoading(false);
    }
  };

  const retry = async (delivery: WebhookDelivery) => {
    setRetrying(delivery.id);
    setError(undefined);
    try {
      const answer = await call<{ delivery: WebhookDelivery }>(
        'POST',
        webhookPath(endpointId, `/deliveries/${encodeURIComponent(delivery.id)}/retry`),
      );
      setRows((shown) => shown?.map((row) => (row.id === delivery.id ? answer.delivery : row)));
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setRetrying(undefined);
    }
  };

  return (
    <section className="webhook-deliveries">
      <div className="webhook-deliveries-header">
        <h2>
          Deliveries to <code>{props.endpoint.url}</code>
        </h2>
        <button type="button" disabled={loading} onClick={() => void loadFirst()}>
          Refresh
        </button>
      </div>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <table aria-label="Deliveries">
        <thead>
          <tr>
            <th>Event</th>
            <th>State</th>
            <th>Attempts</th>
            <th>Last attempt</th>
            <th>Created</th>
            <th>Next attempt</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((delivery) => (
            <Fragment key={delivery.id}>
              <tr data-delivery-id={delivery.id} data-state={delivery.state}>
                <td>
                  <code>{delivery.event_type}</code>
                </td>
                <td>
                  <span className={`badge badge-${delivery.state}`}>{delivery.state}</span>
                </td>
                <td>{delivery.attempts}</td>
                <td>{lastOutcome(delivery)}</td>
                <td>{formatTime(delivery.created_at)}</td>
                <td>{delivery.state === 'pending' ? formatTime(delivery.next_attempt_at) : '—'}</td>
                <td>
                  <div className="row-actions">
                    <button
                      type="button"
                      aria-expanded={opened === delivery.id}
                      onClick={() => setOpened(opened === delivery.id ? undefined : delivery.id)}
                    >
                      {opened === delivery.id ? 'Hide payload' : 'View payload'}
                    </button>
                    {delivery.state === 'failed' ? (
                      <button
                        type="button"
                        disabled={retrying === delivery.id}
                        onClick={() => void retry(delivery)}
                      >
                        Retry
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
              {opened === delivery.id ? (
                <tr className="webhook-payload-row">
                  <td colSpan={7}>
                    <pre className="webhook-payload" data-testid="webhook-payload">
                      {JSON.stringify(delivery.payload, null, 2)}
                    </pre>
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
          {rows && rows.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No deliveries yet. Send a test event to see one.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {cursor ? (
        <button
          type="button"
          className="usage-older"
          disabled={loading}
          onClick={() => void loadOlder()}
        >
          Load older
        </button>
      ) : null}
    </section>
  );
}
