import { z } from 'zod';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { StreamingEventRecord } from './records.ts';
import type { StreamingSessionReport } from './report.ts';

/** Largest `metadata` or event `data`, as JSON text. */
export const MAX_JSON_OBJECT_BYTES = 4096;
/** Events one POST may carry. */
export const MAX_EVENTS_PER_BATCH = 100;

const jsonObject = (what: string) =>
  z
    .record(z.string(), z.unknown())
    .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_JSON_OBJECT_BYTES, {
      message: `${what} must be at most ${MAX_JSON_OBJECT_BYTES} bytes of JSON`,
    });

const partnerSessionId = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'The `partner_session_id` your speech requests of this session carry (1 to 200 characters, unique in the environment). Default: the session id.',
  );

export const createSessionSchema = z
  .strictObject({
    partner_session_id: partnerSessionId.optional(),
    metadata: jsonObject('metadata').optional().describe('Your own JSON object (at most 4 KiB).'),
  })
  .meta({ title: 'StreamingSessionCreate' });
export type CreateSessionBody = z.infer<typeof createSessionSchema>;

export const updateSessionSchema = z
  .strictObject({
    status: z
      .enum(['active', 'ended'])
      .optional()
      .describe('`ended` ends the session (once; an ended session never becomes active).'),
    metadata: jsonObject('metadata').optional().describe('Replaces the metadata.'),
  })
  .meta({ title: 'StreamingSessionUpdate' });
export type UpdateSessionBody = z.infer<typeof updateSessionSchema>;

export const eventSchema = z
  .strictObject({
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'lower-case letters, digits, _ . - (at most 64)')
      .describe(
        'What happened: `playback_started`, `first_audio_played` (data.latency_ms: from stop to the first sample heard), `underrun` (data.duration_ms), `interrupted`, `playback_finished`, `error` (data.code), or a type of your own.',
      ),
    occurred_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When it happened (ISO 8601), by the client; default: when it was received.'),
    request_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The speech request (`request_id` of its events or `X-Request-Id`) it concerns.'),
    data: jsonObject('data').optional().describe('Details (a JSON object of at most 4 KiB).'),
  })
  .meta({ title: 'StreamingSessionEventInput' });

export const appendEventsSchema = z
  .strictObject({ events: z.array(eventSchema).min(1).max(MAX_EVENTS_PER_BATCH) })
  .meta({ title: 'StreamingSessionEventBatch' });
export type AppendEventsBody = z.infer<typeof appendEventsSchema>;

export const listSessionsQuerySchema = z.strictObject({
  status: z.enum(['active', 'ended']).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Default 20.'),
  cursor: z.uuid().optional().describe('`next_cursor` of the previous page.'),
});
export type ListSessionsQuery = z.infer<typeof listSessionsQuerySchema>;

export const listEventsQuerySchema = z.strictObject({
  type: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional().describe('Default 100.'),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, 'a `next_cursor`')
    .optional()
    .describe('`next_cursor` of the previous page.'),
});
export type ListEventsQuery = z.infer<typeof listEventsQuerySchema>;

export const sessionSchema = z
  .object({
    id: z.string(),
    partner_session_id: z.string(),
    status: z.enum(['active', 'ended']),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
    ended_at: z.string().nullable(),
    usage: z
      .object({
        requests: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        cancelled: z.number().int(),
        running: z.number().int(),
        chars: z.number().int(),
        audio_ms: z.number().int(),
        credits: z.number(),
      })
      .describe(
        'The speech requests sent with the session’s `partner_session_id`, as the ledger has them.',
      ),
    events: z
      .object({
        count: z.number().int(),
        by_type: z.record(z.string(), z.number().int()),
      })
      .describe('The playback events the client reported.'),
  })
  .meta({ title: 'StreamingSession' });

export const sessionListSchema = z
  .object({ sessions: z.array(sessionSchema), next_cursor: z.string().nullable() })
  .meta({ title: 'StreamingSessionList' });

export const eventRecordSchema = z
  .object({
    seq: z.number().int().describe('1, 2, 3 ... in the order received.'),
    type: z.string(),
    occurred_at: z.string(),
    request_id: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    received_at: z.string(),
  })
  .meta({ title: 'StreamingSessionEvent' });

export const eventListSchema = z
  .object({
    session_id: z.string(),
    events: z.array(eventRecordSchema),
    next_cursor: z.string().nullable(),
  })
  .meta({ title: 'StreamingSessionEventList' });

export const appendedSchema = z
  .object({
    accepted: z.number().int(),
    first_seq: z.number().int(),
    last_seq: z.number().int(),
  })
  .meta({ title: 'StreamingSessionEventsAccepted' });

export function sessionBody(report: StreamingSessionReport): z.infer<typeof sessionSchema> {
  const { session, usage, eventTypes } = report;
  return {
    id: session.id,
    partner_session_id: session.partnerSessionId,
    status: session.status,
    metadata: session.metadata,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    ended_at: session.endedAt,
    usage: {
      requests: usage.requests,
      succeeded: usage.succeeded,
      failed: usage.failed,
      cancelled: usage.cancelled,
      running: usage.running,
      chars: usage.chars,
      audio_ms: usage.audio_ms,
      credits: usage.millicredits / MILLICREDITS_PER_CREDIT,
    },
    events: { count: session.eventCount, by_type: eventTypes },
  };
}

export function eventBody(event: StreamingEventRecord): z.infer<typeof eventRecordSchema> {
  return {
    seq: event.seq,
    type: event.type,
    occurred_at: event.occurredAt,
    request_id: event.requestId,
    data: event.data,
    received_at: event.receivedAt,
  };
}
