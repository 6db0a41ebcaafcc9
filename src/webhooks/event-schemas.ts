import { z } from 'zod';
import { sessionReportSchema, transcriptTurnSchema } from '../agent-sessions/session-schemas.ts';
import { sessionSchema as streamingSessionSchema } from '../streaming-sessions/schemas.ts';
import { transcriptionSessionDetailSchema } from '../transcription/schemas.ts';

const envelope = <Type extends string, Data extends z.ZodType>(type: Type, data: Data) =>
  z.strictObject({
    id: z.string().describe('The event id (`evt_...`), also `webhook-id`: deduplicate by it.'),
    type: z.literal(type),
    timestamp: z.string().describe('When it happened (ISO 8601 UTC).'),
    data,
  });

const sessionParties = {
  end_user_id: z.string().nullable().describe('The end user its session token named.'),
  chat_session_id: z
    .string()
    .nullable()
    .describe("The backend's conversation id of an application session; null otherwise."),
};

/**
 * The bodies the service POSTs to webhook endpoints, by event type: what the OpenAPI
 * document's `webhooks` describes, and what tests check real events against.
 */
export const WEBHOOK_EVENT_SCHEMAS = {
  'agent_session.started': {
    summary: 'A worker took a live Agent session.',
    schema: envelope(
      'agent_session.started',
      z.strictObject({
        session_id: z.string(),
        agent_id: z.string(),
        kind: z.enum(['managed', 'application']),
        ...sessionParties,
        created_at: z.string(),
        started_at: z.string(),
      }),
    ).meta({ title: 'AgentSessionStartedEvent' }),
  },
  'agent_session.ended': {
    summary:
      'A live Agent session ended (or failed): its report as GET /v1/agent-sessions/{id} gives it, its end user and its whole transcript.',
    schema: envelope(
      'agent_session.ended',
      sessionReportSchema
        .extend({ ...sessionParties, transcript: z.array(transcriptTurnSchema) })
        .strict(),
    ).meta({ title: 'AgentSessionEndedEvent' }),
  },
  'transcription_session.started': {
    summary:
      'A realtime transcription session opened (its `start` was accepted): the session as GET /v1/realtime-transcription-sessions/{sessionId} gives it.',
    schema: envelope('transcription_session.started', transcriptionSessionDetailSchema).meta({
      title: 'TranscriptionSessionStartedEvent',
    }),
  },
  'transcription_session.ended': {
    summary:
      'A realtime transcription session ended (or failed): the session as GET /v1/realtime-transcription-sessions/{sessionId} gives it, with its cost and whole transcript.',
    schema: envelope('transcription_session.ended', transcriptionSessionDetailSchema).meta({
      title: 'TranscriptionSessionEndedEvent',
    }),
  },
  'streaming_session.started': {
    summary:
      'A streaming session was created: the session as GET /v1/streaming-sessions/{sessionId} gives it.',
    schema: envelope('streaming_session.started', streamingSessionSchema).meta({
      title: 'StreamingSessionStartedEvent',
    }),
  },
  'streaming_session.ended': {
    summary:
      'A streaming session was ended (PATCH `status: ended`): the session as GET /v1/streaming-sessions/{sessionId} gives it, with its usage.',
    schema: envelope('streaming_session.ended', streamingSessionSchema).meta({
      title: 'StreamingSessionEndedEvent',
    }),
  },
  'webhook.test': {
    summary: 'Sent by POST /v1/webhooks/{webhookId}/test, to that endpoint only.',
    schema: envelope(
      'webhook.test',
      z.strictObject({
        webhook_id: z.string(),
        environment: z.enum(['production', 'development']),
      }),
    ).meta({ title: 'WebhookTestEvent' }),
  },
} as const;
