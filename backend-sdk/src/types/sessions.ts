import type { CharacterCardInput } from './agents.ts';
import type { ResponseJson } from './openapi.ts';
import type { Avatar } from './voices.ts';

/** Body of `POST /v1/agents/{agentId}/session-tokens`. */
export interface AgentSessionTokenRequest {
  /** Your end user (UUID); required when the Agent has memory, documents or calendar. */
  end_user_id?: string;
}

/** Answer of `POST /v1/agents/{agentId}/session-tokens`: valid 15 minutes, one conversation. */
export type AgentSessionToken = ResponseJson<'createAgentSessionToken', 201>;

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

/**
 * Answer of `GET /v1/agent-sessions/{sessionId}`: state, times, usage and charge, latency
 * percentiles, and the recording when the Agent records sessions (fetch it with
 * `agentSessions.recording(sessionId)`). `kind` `application`: a backend owns instructions,
 * history and tools (protocol v2).
 */
export type AgentSessionReport = ResponseJson<'getAgentSession', 200>;

/** Query of `GET /v1/agent-sessions`. */
export interface AgentSessionListQuery {
  agent_id?: string;
  end_user_id?: string;
  /** The previous page's `next_cursor`. */
  cursor?: string;
  /** 1 to 100; default 20. */
  limit?: number;
}

/**
 * Answer of `GET /v1/agent-sessions`, newest first: each session's report with its end user
 * and, for an application session, the backend's conversation id (`chat_session_id`).
 */
export type AgentSessionList = ResponseJson<'listAgentSessions', 200>;

/** A session in `GET /v1/agent-sessions`. */
export type AgentSessionSummary = AgentSessionList['sessions'][number];

/** Answer of `GET /v1/agent-sessions/{sessionId}/transcript`: oldest turn first. */
export type AgentSessionTranscript = ResponseJson<'getAgentSessionTranscript', 200>;

/** One transcript turn of an Agent session; an interrupted agent turn holds what was heard. */
export type AgentSessionTranscriptTurn = AgentSessionTranscript['transcript'][number];
