import { z } from 'zod';
import { pageCursorSchema, UUID_PATTERN } from '../http/page-cursor.ts';

const latencyStatsSchema = z
  .object({ p50: z.number().int(), p95: z.number().int(), max: z.number().int() })
  .describe('Milliseconds: 50th and 95th percentile (nearest rank) and largest.')
  .meta({ title: 'LatencyStats' });

const latencySchema = z
  .object({
    turns: z.number().int().describe('Spoken user turns the agent answered with audio.'),
    end_of_speech_to_first_audio_ms: latencyStatsSchema.describe(
      "From the end of the user's speech (voice activity detection) to the agent's first audio frame.",
    ),
    transcription_delay_ms: latencyStatsSchema
      .nullable()
      .describe("From the end of the user's speech to the final transcript."),
    llm_first_token_ms: latencyStatsSchema
      .nullable()
      .describe("The language model's first token, from its request."),
    tts_first_audio_ms: latencyStatsSchema
      .nullable()
      .describe("Speech synthesis's first audio, from its first text."),
  })
  .meta({ title: 'AgentSessionLatency' });

export const sessionReportSchema = z
  .object({
    session_id: z.string(),
    agent_id: z.string(),
    kind: z
      .enum(['managed', 'application'])
      .describe('`application`: a backend owns instructions, history and tools (protocol v2).'),
    state: z.enum(['connecting', 'active', 'ended', 'failed']),
    created_at: z.string(),
    started_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    end_reason: z.string().nullable(),
    transcript_count: z.number().int(),
    usage: z.object({
      charge: z.object({
        credits: z.number().describe('The measure.'),
        amount: z.number().describe('Deprecated projection: credits / 1000.'),
        currency: z.literal('USD').describe('Deprecated.'),
      }),
      session_seconds: z.number(),
      llm_input_tokens: z.number().int(),
      llm_output_tokens: z.number().int(),
      tts_characters: z.number().int(),
      stt_seconds: z.number(),
      web_searches: z
        .number()
        .int()
        .describe('Web searches the Agent made; their cost is part of `charge`.'),
    }),
    latency: latencySchema
      .nullable()
      .describe(
        'How fast the agent answered spoken turns, measured by the worker; null until it answered one.',
      ),
    recording: z
      .object({
        url: z.string().describe('Path of the recording on this api (`GET`, the same key).'),
        content_type: z.literal('audio/ogg'),
        duration_seconds: z.number(),
      })
      .nullable()
      .describe(
        "The session's recording (stereo Ogg Opus: the user left, the Agent right); null unless the Agent records sessions (`recording_enabled`) and the session has ended with audio.",
      ),
  })
  .meta({ title: 'AgentSession' });

/** A session in a list: its report, who it served and the application's conversation id. */
export const sessionSummarySchema = sessionReportSchema
  .extend({
    end_user_id: z.string().nullable().describe('The end user its session token named.'),
    chat_session_id: z
      .string()
      .nullable()
      .describe("The backend's conversation id of an application session; null otherwise."),
  })
  .meta({ title: 'AgentSessionSummary' });

export const sessionListSchema = z
  .object({
    sessions: z.array(sessionSummarySchema),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` for the next (older) page; null on the last page.'),
  })
  .meta({ title: 'AgentSessionList' });

export const sessionListQuerySchema = z.strictObject({
  agent_id: z.string().min(1).max(64).optional().describe('Only sessions of this Agent.'),
  end_user_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Only sessions of this end user (the `end_user_id` of their session token).'),
  cursor: pageCursorSchema(UUID_PATTERN, 'sessions').optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Default 20.'),
});

export const transcriptTurnSchema = z
  .object({
    id: z.string().describe('Durable id of the turn.'),
    role: z.enum(['user', 'agent']),
    text: z.string(),
    interrupted: z
      .boolean()
      .describe('The user spoke over this agent turn; `text` is what was heard.'),
    created_at: z.string(),
  })
  .meta({ title: 'AgentSessionTranscriptTurn' });

export const transcriptSchema = z
  .object({ session_id: z.string(), transcript: z.array(transcriptTurnSchema) })
  .meta({ title: 'AgentSessionTranscript' });
