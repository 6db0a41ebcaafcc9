import type { Generated } from 'kysely';

// Managed Agents, their revisions and publications, conversations, the language-model ledger and Agent sessions.

/** A managed Agent: identity, slug and pointers to its draft revision and publication. */
export interface AgentsTable {
  /** UUID (v7). */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** Unique per workspace and environment. */
  slug: string;
  draft_revision_id: string;
  draft_version: number;
  active_publication_id: string | null;
  /** Version of the newest publication; 0 before the first. */
  publication_version: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** One immutable draft revision: every write to an Agent adds a row. */
export interface AgentRevisionsTable {
  id: string;
  agent_id: string;
  version: number;
  /** Character card V3 as JSON text. */
  character_card: string;
  voice_id: string | null;
  avatar_id: string;
  llm_provider: string | null;
  llm_model: string | null;
  thinking_level: string;
  web_search_enabled: number;
  memory_enabled: number;
  calendar_enabled: number;
  documents_enabled: number;
  /** BCP 47 tag of the language the Agent's users speak; null when unset. */
  language: string | null;
  /** 1: the Agent's sessions are recorded. */
  recording_enabled: number;
  created_at: string;
}

/** One immutable publication: a revision that sessions run, with its switches. */
export interface AgentPublicationsTable {
  id: string;
  agent_id: string;
  version: number;
  revision_id: string;
  memory_enabled: number;
  calendar_enabled: number;
  documents_enabled: number;
  created_at: string;
}

/** Session tokens already used (their `jti`), kept until they expire. */
export interface AgentSessionTokenUsesTable {
  jti: string;
  agent_id: string;
  expires_at: string;
  used_at: string;
}

/** A text conversation with a published Agent, scoped to one end user (or none). */
export interface ConversationsTable {
  /** UUID (v7). */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  agent_id: string;
  /** The publication that opened it (its `first_mes`). */
  publication_id: string;
  end_user_id: string | null;
  /** `{{user}}` of the conversation, when the caller named its end user. */
  user_name: string | null;
  created_at: string;
}

/** One message of a conversation; assistant turns carry their usage and cost. */
export interface ConversationMessagesTable {
  /** UUID (v7): the durable message id. */
  id: string;
  conversation_id: string;
  workspace_id: string;
  /** Order within the conversation, from 1. */
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  /** The client's `message_id` of a user message (idempotent retries). */
  client_message_id: string | null;
  /** The request that wrote it (null for the opening message). */
  request_id: string | null;
  publication_id: string | null;
  llm_provider: string | null;
  llm_model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_millicredits: number | null;
  /**
   * JSON of the tool rounds of an answer whose turn called tools (`StoredToolRound[]`,
   * src/conversations/tool-history.ts); null otherwise.
   */
  tool_rounds: string | null;
  created_at: string;
}

export type LlmRequestStatus = 'started' | 'succeeded' | 'failed' | 'cancelled';

/** The language-model ledger: one row per billed model call, like `synthesis_requests`. */
export interface LlmRequestsTable {
  request_id: string;
  audit_id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  api_key_id: string | null;
  /** What made the call: `messages` (text conversations) or `translation` (the preview). */
  source: string;
  /** Null for calls of no Agent (the translation preview). */
  agent_id: string | null;
  publication_id: string | null;
  conversation_id: string | null;
  user_message_id: string | null;
  assistant_message_id: string | null;
  llm_provider: string;
  llm_model: string;
  input_price_millicredits_per_1m: number;
  output_price_millicredits_per_1m: number;
  /** Credit held while the call runs; released at the end. */
  reserved_millicredits: number;
  cost_millicredits: Generated<number>;
  input_tokens: Generated<number>;
  output_tokens: Generated<number>;
  /** Web searches the turn was charged for, and their part of `cost_millicredits`. */
  web_searches: Generated<number>;
  web_search_millicredits: Generated<number>;
  status: LlmRequestStatus;
  error_code: string | null;
  instance_id: string;
  created_at: string;
  finished_at: string | null;
}

export type AgentSessionState = 'connecting' | 'active' | 'ended' | 'failed';

/** An Agent session (WebRTC room run by the agent worker). */
export interface AgentSessionsTable {
  id: string;
  agent_id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  /** The workspace key that minted the session token; the worker's TTS is billed to it. */
  api_key_id: string;
  end_user_id: string | null;
  publication_id: string;
  /** JSON of the published snapshot the session runs. */
  snapshot: string;
  /** JSON of the session overrides, when given. */
  overrides: string | null;
  /** JSON of `sessionContext`, when given. */
  session_context: string | null;
  room: string;
  state: AgentSessionState;
  end_reason: string | null;
  created_at: string;
  expires_at: string;
  started_at: string | null;
  ended_at: string | null;
  heartbeat_at: string | null;
  /** The generation of the job that runs the session; the api raises it on a hand-over. */
  job_epoch: Generated<number>;
  /** When the api last handed the session to a new job; null before any hand-over. */
  handed_over_at: Generated<string | null>;
  /** The input mode a job last set (`push-to-talk`, `automatic`); null before any. */
  input_mode: Generated<'push-to-talk' | 'automatic' | null>;
  session_ms: Generated<number>;
  llm_input_tokens: Generated<number>;
  llm_output_tokens: Generated<number>;
  llm_millicredits: Generated<number>;
  tts_chars: Generated<number>;
  stt_ms: Generated<number>;
  /** Web searches the session's jobs made, and what they cost (part of its one charge). */
  web_searches: Generated<number>;
  web_search_millicredits: Generated<number>;
  /**
   * JSON of the application backend's effective `update_context` (`ContextUpdate`), for a
   * job that takes the session over; null until one was sent.
   */
  context_update: Generated<string | null>;
  charged_millicredits: Generated<number>;
  /** `managed` (the Agent's own card) or `application` (backend-owned, protocol v2). */
  kind: Generated<'managed' | 'application'>;
  /** JSON of the backend's application (instructions, history, tools); application only. */
  application: string | null;
  /** The LiveKit identity of the one backend allowed to send commands and results. */
  backend_identity: string | null;
  /** The backend's conversation id (UUID); application only. */
  chat_session_id: string | null;
  /** The backend's start `requestId`; with `chat_session_id`, makes a start idempotent. */
  start_request_id: string | null;
  /** JSON of the worker's `TurnLatencySummary`; null until it measured a spoken turn. */
  latency: string | null;
  /** The audio store key of the session's recording; null when there is none. */
  recording_key: Generated<string | null>;
  recording_duration_ms: Generated<number | null>;
}

/** One persisted transcript turn of an Agent session; `id` is minted by the worker. */
export interface AgentSessionMessagesTable {
  id: string;
  session_id: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: number;
  created_at: string;
}
