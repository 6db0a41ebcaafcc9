/**
 * The api's answer to a session start (`POST /v1/agents/{agentId}/sessions`), as sent on the
 * wire, or the `session` part of an application-session start (the same fields). A backend
 * that starts sessions itself (`startSession`) returns this object unchanged.
 */
export interface SessionStartResponse {
  session_id: string;
  agent_id: string;
  room: string;
  livekit: { url: string; token: string };
  avatar?: { id: string; name: string; image_url: string } | null;
  expires_at: string;
}

/** A started conversation: the api's session answer with camelCased names. */
export interface ConversationSession {
  /** Id of the session (`GET /v1/agent-sessions/{sessionId}` reports on it). */
  sessionId: string;
  agentId: string;
  /** Name of the LiveKit room of the conversation. */
  room: string;
  /** Where and how the browser joined the room. */
  livekit: { url: string; token: string };
  /** The Agent's avatar, when it has one. */
  avatar: { id: string; name: string; imageUrl: string } | null;
  /** ISO 8601 end of the session's validity. */
  expiresAt: string;
}

/** How the end user's turns end. */
export type { InputMode } from '@awp/protocol';

/** State of the connection to the conversation. */
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting';

/** What the Agent is doing (LiveKit Agents' `lk.agent.state`). */
export type AgentState = 'initializing' | 'listening' | 'thinking' | 'speaking';
