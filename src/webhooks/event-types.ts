/**
 * Event types an endpoint may subscribe to. `agent_session.started` is sent when a worker
 * takes an Agent session; `agent_session.ended` when it ends, with the session's report (its
 * recording included, which is stored before the session ends) and transcript.
 * `transcription_session.*` when a realtime transcription session opens and ends, and
 * `streaming_session.*` when a streaming session is created and ended, each with the
 * session as GET answers it at that moment. `webhook.test` is sent only when asked for,
 * to one endpoint.
 */
export const WEBHOOK_EVENT_TYPES = [
  'agent_session.started',
  'agent_session.ended',
  'transcription_session.started',
  'transcription_session.ended',
  'streaming_session.started',
  'streaming_session.ended',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test event `POST /v1/webhooks/{id}/test` sends; no endpoint subscribes to it. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Every body the service sends: Standard Webhooks' shape (`type`, `timestamp`, `data`). */
export interface WebhookEventBody<Data = unknown> {
  /** `evt_...`; also the `webhook-id` header, the same on every retry. */
  id: string;
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  /** When the event happened (ISO 8601 UTC). */
  timestamp: string;
  data: Data;
}

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
