import type { CharacterCardInput } from './agents.ts';
import type { Avatar } from './voices.ts';

/** Body of `POST /v1/agents/{agentId}/session-tokens`. */
export interface AgentSessionTokenRequest {
  /** Your end user (UUID); required when the Agent has memory, documents or calendar. */
  end_user_id?: string;
}

/** Answer of `POST /v1/agents/{agentId}/session-tokens`. */
export interface AgentSessionToken {
  /** Valid 15 minutes; starts exactly one conversation with this Agent. */
  token: string;
  expires_at: string;
  agent_id: string;
  capabilities: { managed_voice_agent: true; transport: 'webrtc' };
}

/** Body of `POST /v1/agents/{agentId}/sessions` (usually sent by the client library). */
export interface AgentSessionStart {
  sessionContext?: { userName?: string; timeZone?: string };
  /** This session only: legacy `persona`/`systemPrompt`, or a complete `characterCard`. */
  overrides?: { persona?: string; systemPrompt?: string; characterCard?: CharacterCardInput };
}

/** Answer of `POST /v1/agents/{agentId}/sessions`. */
export interface AgentSessionStarted {
  session_id: string;
  agent_id: string;
  room: string;
  livekit: { url: string; token: string };
  avatar: Avatar;
  expires_at: string;
}

/** Answer of `GET /v1/agent-sessions/{sessionId}`. */
export interface AgentSessionReport {
  session_id: string;
  agent_id: string;
  /** `application`: a backend owns instructions, history and tools (protocol v2). */
  kind: 'managed' | 'application';
  state: 'connecting' | 'active' | 'ended' | 'failed';
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  end_reason: string | null;
  transcript_count: number;
  usage: {
    charge: { credits: number; amount: number; currency: 'USD' };
    session_seconds: number;
    llm_input_tokens: number;
    llm_output_tokens: number;
    tts_characters: number;
    stt_seconds: number;
  };
  /**
   * The session's recording, when its Agent records sessions (`recording_enabled`) and the
   * session ended with audio; fetch it with `agentSessions.recording(sessionId)`.
   */
  recording?: { url: string; content_type: 'audio/ogg'; duration_seconds: number } | null;
}

/** A session in `GET /v1/agent-sessions`: its report, its end user, its conversation id. */
export interface AgentSessionSummary extends AgentSessionReport {
  end_user_id: string | null;
  /** The backend's conversation id of an application session; null otherwise. */
  chat_session_id: string | null;
}

/** Query of `GET /v1/agent-sessions`. */
export interface AgentSessionListQuery {
  agent_id?: string;
  end_user_id?: string;
  /** The previous page's `next_cursor`. */
  cursor?: string;
  /** 1 to 100; default 20. */
  limit?: number;
}

/** Answer of `GET /v1/agent-sessions`: newest first. */
export interface AgentSessionList {
  sessions: AgentSessionSummary[];
  next_cursor: string | null;
}

/** One transcript turn of a live session. */
export interface AgentSessionTranscriptTurn {
  /** Durable id of the turn. */
  id: string;
  role: 'user' | 'agent';
  /** What was said; for an interrupted agent turn, what was heard. */
  text: string;
  interrupted: boolean;
  created_at: string;
}

/** Answer of `GET /v1/agent-sessions/{sessionId}/transcript`: oldest turn first. */
export interface AgentSessionTranscript {
  session_id: string;
  transcript: AgentSessionTranscriptTurn[];
}
