import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEventType,
} from '../../../backend-sdk/src/types/webhooks.ts';

export { WEBHOOK_MANAGER_ROLES } from '../../types.ts';
// The webhook resources' types are the server library's: one definition of the wire shape.
export type { WebhookDelivery, WebhookEndpoint, WebhookEndpointCreated, WebhookEventType };

/** Answer of `GET /operator/api/webhooks`. */
export interface WebhookList {
  webhooks: WebhookEndpoint[];
  /** The event types an endpoint may subscribe to, in the service's order. */
  event_types: WebhookEventType[];
}

/** A page of `GET /operator/api/webhooks/{id}/deliveries`. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  next_cursor: string | null;
}

/** `/webhooks/ID` with the id escaped, followed by `rest`. */
export function webhookPath(webhookId: string, rest = ''): string {
  return `/webhooks/${encodeURIComponent(webhookId)}${rest}`;
}
