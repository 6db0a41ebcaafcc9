import type { AgentSessionReport, TurnLatencySummary } from './agent-session-records.ts';

/** `GET /v1/agent-sessions/{id}`'s body: state, timing, transcript count, usage, latency. */
export function sessionReportBody(report: AgentSessionReport) {
  const { record, usage } = report;
  const credits = report.chargedMillicredits / 1000;
  return {
    session_id: record.id,
    agent_id: record.agentId,
    kind: record.kind,
    state: record.state,
    created_at: record.createdAt,
    started_at: record.startedAt,
    ended_at: record.endedAt,
    end_reason: record.endReason,
    transcript_count: report.transcriptCount,
    usage: {
      charge: { credits, amount: credits / 1000, currency: 'USD' },
      session_seconds: usage.sessionMs / 1000,
      llm_input_tokens: usage.llmInputTokens,
      llm_output_tokens: usage.llmOutputTokens,
      tts_characters: usage.ttsChars,
      stt_seconds: usage.sttMs / 1000,
      web_searches: usage.webSearches,
    },
    latency: report.latency && latencyBody(report.latency),
    recording: report.recording && {
      url: `/v1/agent-sessions/${record.id}/recording`,
      content_type: 'audio/ogg' as const,
      duration_seconds: report.recording.durationMs / 1000,
    },
  };
}

/** The API's shape of a latency summary. */
function latencyBody(latency: TurnLatencySummary) {
  return {
    turns: latency.turns,
    end_of_speech_to_first_audio_ms: latency.endOfSpeechToFirstAudioMs,
    transcription_delay_ms: latency.transcriptionDelayMs,
    llm_first_token_ms: latency.llmFirstTokenMs,
    tts_first_audio_ms: latency.ttsFirstAudioMs,
  };
}
