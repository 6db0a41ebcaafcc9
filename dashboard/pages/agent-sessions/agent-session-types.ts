/** The 50th and 95th percentiles and the largest of one measure, in ms. */
export interface LatencyStats {
  p50: number;
  p95: number;
  max: number;
}

/** An Agent session as `/operator/api/agent-sessions` reports it. */
export interface AgentSession {
  session_id: string;
  agent_id: string;
  agent_slug: string | null;
  end_user_id: string | null;
  kind: 'managed' | 'application';
  state: 'connecting' | 'active' | 'ended' | 'failed';
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  end_reason: string | null;
  transcript_count: number;
  usage: {
    charge: { credits: number };
    session_seconds: number;
    llm_input_tokens: number;
    llm_output_tokens: number;
    tts_characters: number;
    stt_seconds: number;
    web_searches: number;
  };
  latency: {
    turns: number;
    end_of_speech_to_first_audio_ms: LatencyStats;
    transcription_delay_ms: LatencyStats | null;
    llm_first_token_ms: LatencyStats | null;
    tts_first_audio_ms: LatencyStats | null;
  } | null;
  /** Stereo Ogg Opus (the user left, the Agent right); null when the session was not recorded. */
  recording: {
    url: string;
    content_type: 'audio/ogg';
    duration_seconds: number;
  } | null;
}

/** One turn of a session's transcript. */
export interface TranscriptTurn {
  id: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: boolean;
  created_at: string;
}

/** Seconds as `1 min 05 s` or `42.0 s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
}

/** What a role without access to sessions is told. */
export const AGENT_SESSIONS_ROLE_NOTICE =
  'Agent sessions and their transcripts are for an organization Owner, Admin or Builder.';
