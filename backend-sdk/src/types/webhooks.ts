import type { RequestJson, ResponseJson } from './openapi.ts';
import type { AgentSessionReport, AgentSessionTranscriptTurn } from './sessions.ts';
import type { StreamingSession } from './streaming-sessions.ts';
import type { TranscriptionSessionDetail } from './transcription.ts';

/** A webhook endpoint (`/v1/webhooks`); its secret is shown only when made or rotated. */
export type WebhookEndpoint = ResponseJson<'getWebhook', 200>;

/** Event types a webhook endpoint may subscribe to. */
export type WebhookEventType = WebhookEndpoint['events'][number];

/** Body of `POST /v1/webhooks`. */
export type WebhookEndpointCreate = RequestJson<'createWebhook'>;

/** Body of `PATCH /v1/webhooks/{id}`: the fields to change. */
export type WebhookEndpointUpdate = RequestJson<'updateWebhook'>;

/** Answer of `POST /v1/webhooks`: the endpoint and its signing secret (`whsec_...`). */
export type WebhookEndpointCreated = ResponseJson<'createWebhook', 201>;

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed';

/** One event sent (or being sent) to one endpoint. */
export interface WebhookDelivery {
  /** `whd_...` */
  id: string;
  webhook_id: string;
  /** The event's id, also the `webhook-id` header. */
  event_id: string;
  event_type: WebhookEventType | 'webhook.test';
  state: WebhookDeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  /** HTTP status of the last attempt; null when no response came. */
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  delivered_at: string | null;
  created_at: string;
  /** The exact body sent. */
  payload: WebhookEvent;
}

/** `data` of `agent_session.ended`: the session's report, who it served and its transcript. */
export interface AgentSessionEndedData extends AgentSessionReport {
  end_user_id: string | null;
  /** The backend's conversation id of an application session; null otherwise. */
  chat_session_id: string | null;
  transcript: AgentSessionTranscriptTurn[];
}

/** `data` of `agent_session.started`: the session a worker took, and who it serves. */
export interface AgentSessionStartedData {
  session_id: string;
  agent_id: string;
  kind: 'managed' | 'application';
  end_user_id: string | null;
  /** The backend's conversation id of an application session; null otherwise. */
  chat_session_id: string | null;
  created_at: string;
  started_at: string;
}

/** Every body the service sends (Standard Webhooks: signed, with `webhook-id` = `id`). */
export type WebhookEvent =
  | { id: string; type: 'agent_session.ended'; timestamp: string; data: AgentSessionEndedData }
  | { id: string; type: 'agent_session.started'; timestamp: string; data: AgentSessionStartedData }
  | {
      id: string;
      /** A realtime transcription session opened; `timestamp` is its `started_at`. */
      type: 'transcription_session.started';
      timestamp: string;
      /** The session as `client.transcription.sessions.get()` reads it then. */
      data: TranscriptionSessionDetail;
    }
  | {
      id: string;
      /** A realtime transcription session ended or failed; `timestamp` is its `ended_at`. */
      type: 'transcription_session.ended';
      timestamp: string;
      /** The session with its cost and whole transcript. */
      data: TranscriptionSessionDetail;
    }
  | {
      id: string;
      /** A streaming session was created; `timestamp` is its `created_at`. */
      type: 'streaming_session.started';
      timestamp: string;
      /** The session as `client.streamingSessions.get()` reads it then. */
      data: StreamingSession;
    }
  | {
      id: string;
      /** A streaming session was ended; `timestamp` is its `ended_at`. */
      type: 'streaming_session.ended';
      timestamp: string;
      /** The session with its usage. */
      data: StreamingSession;
    }
  | {
      id: string;
      type: 'webhook.test';
      timestamp: string;
      data: { webhook_id: string; environment: 'production' | 'development' };
    };
