import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.ts';
import {
  type AgentSessionReport,
  type TurnLatencySummary,
  toRecord,
} from './agent-session-records.ts';

/** The ledger's `partner_session_id` of an Agent session's agent speech. */
export function agentSessionLedgerId(sessionId: string): string {
  return `agent-session:${sessionId}`;
}

/**
 * The report of the workspace's session `id` as the database has it now: state, timing,
 * transcript count, usage (the TTS ledger's agent speech included), latency, recording.
 * Takes a transaction too, so an event can report the change it commits with.
 */
export async function readSessionReport(
  db: Kysely<Database>,
  workspaceId: string,
  id: string,
): Promise<AgentSessionReport> {
  const row = await db
    .selectFrom('agent_sessions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const count = await db
    .selectFrom('agent_session_messages')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('session_id', '=', id)
    .executeTakeFirstOrThrow();
  const tts = await db
    .selectFrom('synthesis_requests')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string | number>('cost_millicredits'), sql`0`).as('cost'),
      eb.fn.coalesce(eb.fn.sum<string | number>('chars_synthesized'), sql`0`).as('chars'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('partner_session_id', '=', agentSessionLedgerId(id))
    .executeTakeFirstOrThrow();
  return {
    record: toRecord(row),
    transcriptCount: Number(count.n),
    usage: {
      sessionMs: Number(row.session_ms),
      llmInputTokens: Number(row.llm_input_tokens),
      llmOutputTokens: Number(row.llm_output_tokens),
      llmMillicredits: Number(row.llm_millicredits),
      ttsChars: Math.max(Number(row.tts_chars), Number(tts.chars)),
      sttMs: Number(row.stt_ms),
      webSearches: Number(row.web_searches),
    },
    chargedMillicredits: Number(row.charged_millicredits) + Number(tts.cost),
    latency: row.latency ? (JSON.parse(row.latency) as TurnLatencySummary) : null,
    recording: row.recording_key ? { durationMs: Number(row.recording_duration_ms ?? 0) } : null,
  };
}
