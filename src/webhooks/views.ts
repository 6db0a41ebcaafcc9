import type { WebhookDelivery } from './deliveries.ts';
import type { WebhookEndpoint } from './endpoints.ts';

/** The API's shape of an endpoint (`/v1/webhooks` and the dashboard's routes). */
export function webhookEndpointBody(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.enabled,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

/** The API's shape of a delivery. */
export function webhookDeliveryBody(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    webhook_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    state: delivery.state,
    attempts: delivery.attempts,
    next_attempt_at: delivery.nextAttemptAt,
    last_attempt_at: delivery.lastAttemptAt,
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    last_duration_ms: delivery.lastDurationMs,
    delivered_at: delivery.deliveredAt,
    created_at: delivery.createdAt,
    payload: delivery.payload,
  };
}
