import { z } from 'zod';
import { pageCursorSchema, UUID_PATTERN } from '../http/page-cursor.ts';

export const transcriptionTokenSchema = z
  .object({
    token: z.string().describe('Short-lived credential for `/v1/realtime-transcription`.'),
    expires_at: z.string().describe('End of the 2-minute validity (ISO 8601, UTC).'),
    websocket_url: z.string().describe('The realtime transcription WebSocket to open.'),
  })
  .meta({ title: 'RealtimeTranscriptionToken' });

const costSchema = z.object({
  credits: z.number().describe('Credits charged (1,000 credits = 1 USD).'),
  amount: z.number().describe('The same in USD.'),
  currency: z.literal('USD'),
  pass_through: z.literal(false),
});

export const segmentSchema = z.object({
  segment_id: z.number().int().describe('1, 2, 3, ... as the finals were delivered.'),
  text: z.string(),
  start_ms: z.number().int().describe("Offset in the session's audio, from its first sample."),
  end_ms: z.number().int(),
  language: z.string().nullable().describe('As the engine reported it, or as requested.'),
});

export const transcriptionSessionSchema = z
  .object({
    session_id: z.string(),
    status: z
      .enum(['active', 'ended', 'failed'])
      .describe(
        '`active` while it runs; `ended` after `stop` or when the client left; `failed` with `error_code`.',
      ),
    error_code: z.string().nullable().describe('The code of the `error` event that ended it.'),
    audio_format: z.enum(['pcm_16000', 'pcm_24000', 'pcm_48000']),
    language: z.string().nullable().describe('The language the client named (BCP 47).'),
    partner_session_id: z.string().nullable(),
    audio_ms: z
      .number()
      .int()
      .describe('Audio received (while active: as of the last credit reservation).'),
    cost: costSchema.nullable().describe('What the session was charged; null while active.'),
    audit_id: z.string(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
  })
  .meta({ title: 'RealtimeTranscriptionSession' });

export const transcriptionSessionDetailSchema = transcriptionSessionSchema
  .extend({
    transcript: z.string().describe('The final segments joined with spaces.'),
    segments: z.array(segmentSchema).describe('The final segments, in order.'),
  })
  .meta({ title: 'RealtimeTranscriptionSessionDetail' });

export const transcriptionSessionListSchema = z
  .object({
    sessions: z.array(transcriptionSessionSchema).describe('Newest first.'),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` for the next (older) page; null on the last page.'),
  })
  .meta({ title: 'RealtimeTranscriptionSessionList' });

export const transcriptionSessionListQuerySchema = z.strictObject({
  cursor: pageCursorSchema(UUID_PATTERN, 'sessions').optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Default 20.'),
});
