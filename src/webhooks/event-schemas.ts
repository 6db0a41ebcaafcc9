import { z } from 'zod';
import { sessionReportSchema, transcriptTurnSchema } from '../agents/session-schemas.ts';

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
