import type { Generated } from 'kysely';

/** A workspace's webhook endpoint in one environment. */
export interface WebhookEndpointsTable {
  /** `wh_` and 20 base62 characters. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  url: string;
  description: Generated<string>;
  /** JSON array of the event types delivered to this endpoint. */
  events: string;
  enabled: Generated<number>;
  /** The signing secret (`whsec_...`) sealed with the deployment's secrets key. */
  secret_ciphertext: string;
  /** The secret before the last rotation, sealed; it signs beside the new one until expiry. */
  previous_secret_ciphertext: Generated<string | null>;
  previous_secret_expires_at: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: the signed body and how its delivery went. */
export interface WebhookDeliveriesTable {
  /** `whd_` and 20 base62 characters. */
  id: string;
  endpoint_id: string;
  workspace_id: string;
  /** The event's id (`evt_...`), the same for every endpoint and attempt: `webhook-id`. */
  event_id: string;
  event_type: string;
  /** The exact JSON body every attempt sends and signs. */
  payload: string;
  state: WebhookDeliveryState;
  attempts: Generated<number>;
  /** When the next attempt is due; null once delivered or failed for good. */
  next_attempt_at: string | null;
  /** A dispatcher's claim on an attempt in flight; expired claims are taken again. */
  locked_until: Generated<string | null>;
  last_attempt_at: Generated<string | null>;
  /** HTTP status of the last attempt; null when no response came. */
  last_status: Generated<number | null>;
  /** Why the last attempt failed; null after a success. */
  last_error: Generated<string | null>;
  last_duration_ms: Generated<number | null>;
  delivered_at: Generated<string | null>;
  created_at: string;
}
