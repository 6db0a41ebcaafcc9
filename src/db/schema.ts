import type { Generated } from 'kysely';
import type { UpstreamProviderKind } from '../providers/upstream-registry.ts';

/**
 * Table types shared by both dialects. Timestamps are ISO 8601 UTC strings and booleans
 * are 0/1 integers so SQLite and PostgreSQL read and write the same values.
 */
export interface Database {
  workspaces: WorkspacesTable;
  workspace_capabilities: WorkspaceCapabilitiesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  synthesis_requests: SynthesisRequestsTable;
  service_instances: ServiceInstancesTable;
  provider_accounts: ProviderAccountsTable;
  voices: VoicesTable;
  voice_routes: VoiceRoutesTable;
  voice_samples: VoiceSamplesTable;
  voice_clone_attempts: VoiceCloneAttemptsTable;
  agents: AgentsTable;
  agent_revisions: AgentRevisionsTable;
  agent_publications: AgentPublicationsTable;
  agent_session_token_uses: AgentSessionTokenUsesTable;
  conversations: ConversationsTable;
  conversation_messages: ConversationMessagesTable;
  llm_requests: LlmRequestsTable;
  agent_sessions: AgentSessionsTable;
  agent_session_messages: AgentSessionMessagesTable;

  credit_grants: CreditGrantsTable;
  operator_sessions: OperatorSessionsTable;
}

export type WorkspaceStatus = 'active' | 'suspended';

export interface WorkspacesTable {
  id: string;
  name: string;
  status: WorkspaceStatus;
  /** 1 once the billing account is provisioned. */
  billing_provisioned: number;
  /** Balance in millicredits (1 credit = 1,000 millicredits; 1,000 credits = 1 USD). */
  credit_balance_millicredits: number;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceCapabilitiesTable {
  workspace_id: string;
  capability: string;
}

export interface UsersTable {
  id: string;
  email: string;
  created_at: string;
  /** scrypt hash of the operator password (src/operator/passwords.ts); null: cannot sign in. */
  password_hash: string | null;
}

/** A signed-in operator; the cookie holds the id, this row only its SHA-256. */
export interface OperatorSessionsTable {
  id_hash: string;
  user_id: string;
  workspace_id: string;
  created_at: string;
  expires_at: string;
}

export type Role = 'owner' | 'admin' | 'builder' | 'member';

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: Role;
  created_at: string;
}

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  label: string;
  /** First characters of the key, shown in listings. */
  display_prefix: string;
  /** SHA-256 of the full key, hex. The key itself is never stored. */
  key_hash: string;
  status: ApiKeyStatus;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type SynthesisStatus = 'started' | 'succeeded' | 'failed' | 'cancelled';

/** The audit ledger: one row per synthesis request, one-shot or streaming. */
export interface SynthesisRequestsTable {
  request_id: string;
  audit_id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  api_key_id: string | null;
  transport: 'http' | 'websocket';
  /** Public voice id. */
  voice_id: string;
  /** Internal route that served it (provider, model, provider voice); never shown to clients. */
  route: string;
  output_format: string;
  partner_session_id: string | null;
  context_id: string | null;
  chars_requested: number;
  chars_synthesized: Generated<number>;
  provider_audio_ms: Generated<number>;
  encoded_duration_ms: Generated<number>;
  price_millicredits_per_1k_chars: number;
  /** Credit held while the request runs; released at the end. */
  reserved_millicredits: number;
  cost_millicredits: Generated<number>;
  pass_through: number;
  status: SynthesisStatus;
  error_code: string | null;
  audio_persisted: Generated<number>;
  audio_location: string | null;
  /** Process that serves the request; lets a restarted process close rows it left open. */
  instance_id: string;
  created_at: string;
  finished_at: string | null;
}

export type CreditGrantReason = 'opening_balance' | 'workspace_created' | 'added' | 'set';

/**
 * Every credit a workspace received: balance + charges + open reservations equal the sum
 * of these. `millicredits` is negative when `credit set` lowered a balance.
 */
export interface CreditGrantsTable {
  id: string;
  workspace_id: string;
  millicredits: number;
  reason: CreditGrantReason;
  note: string | null;
  /** The balance right after the grant (reservations still open are not in it). */
  balance_after_millicredits: number;
  created_at: string;
}

/** Running api processes and their heartbeat. */
export interface ServiceInstancesTable {
  instance_id: string;
  started_at: string;
  last_seen_at: string;
}

/** Upstream vendors a voice route can use besides the native model. */
export type UpstreamProviderName = UpstreamProviderKind;

/** A workspace's own credential at an upstream vendor. */
export interface ProviderAccountsTable {
  id: string;
  workspace_id: string;
  provider: UpstreamProviderName;
  label: string;
  /** The API key sealed with the deployment's secrets key (see src/secrets/). */
  api_key_ciphertext: string;
  /** Last four characters of the key, for operators telling accounts apart. */
  api_key_last4: string;
  created_at: string;
  updated_at: string;
}

/** A workspace voice (imported or cloned); built-in native voices are not stored. */
export interface VoicesTable {
  /** Public `voice_id`. */
  id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  name: string;
  nsfw: number;
  default_route_id: string | null;
  created_at: string;
  updated_at: string;
}

export type VoiceRouteState = 'ready' | 'cloning' | 'failed' | 'blocked' | 'update_available';

/** What serves a route: an upstream vendor or the service's own (native) model. */
export type VoiceRouteProvider = UpstreamProviderName | 'native';

/** One provider-and-model pairing serving a voice. Never shown to synthesis clients. */
export interface VoiceRoutesTable {
  id: string;
  voice_id: string;
  provider: VoiceRouteProvider;
  model: string;
  /** Vendor voice id, or the derived native voice reference; '' while the first clone runs. */
  provider_voice_id: string;
  /** Workspace provider account; null uses the deployment's credential. */
  provider_account_id: string | null;
  state: VoiceRouteState;
  enabled: number;
  /** JSON string array of capabilities; null on routes older than cloning (from the model). */
  capabilities: string | null;
  /** JSON string array of output formats; null on routes older than cloning (from the model). */
  output_formats: string | null;
  /** JSON string array of the sample ids the provider voice was built from. */
  sample_ids: string | null;
  /** Short operator-facing reason of the last failure or of a block. */
  failure_summary: string | null;
  /** Technical detail of the last failure (vendor status, code, message). */
  failure_detail: string | null;
  /** Who blocked the route: `operator` or `provider`. */
  blocked_by: string | null;
  created_at: string;
  updated_at: string;
}

/** An authorized recording of a voice's speaker (stored audio plus exact transcript). */
export interface VoiceSamplesTable {
  id: string;
  voice_id: string;
  workspace_id: string;
  /** Key in the sample store: `{workspace_id}/{voice_id}/{id}.{ext}`. */
  object_key: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  duration_ms: number;
  sample_rate_hz: number;
  /** BCP 47 language of the speech. */
  language: string;
  transcript: string;
  /** Who confirmed the speaker's permission (operator email or name). */
  permission_confirmed_by: string;
  permission_confirmed_at: string;
  created_at: string;
}

export type CloneAttemptOperation = 'create' | 'append' | 'rebuild' | 'derive';
export type CloneAttemptState = 'queued' | 'running' | 'succeeded' | 'failed';

/** One clone submission of one route: the History of the spec. */
export interface VoiceCloneAttemptsTable {
  id: string;
  voice_id: string;
  route_id: string;
  provider: VoiceRouteProvider;
  operation: CloneAttemptOperation;
  state: CloneAttemptState;
  /** JSON string array: the samples this attempt sends (all, or only new ones for append). */
  sample_ids: string;
  /** The name sent to the vendor; found again by listing when a retry follows a crash. */
  vendor_name: string;
  /** Set just before the vendor request leaves; a retry with it set reconciles first. */
  vendor_request_at: string | null;
  provider_voice_id: string | null;
  failure_summary: string | null;
  failure_detail: string | null;
  requested_by: string;
  created_at: string;
  finished_at: string | null;
}

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
  /** What made the call: `messages` (text conversations). */
  source: string;
  agent_id: string;
  publication_id: string;
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
  status: LlmRequestStatus;
  error_code: string | null;
  instance_id: string;
  created_at: string;
  finished_at: string | null;
}

export type AgentSessionState = 'connecting' | 'active' | 'ended' | 'failed';

/** A live Agent session (WebRTC room run by the agent worker). */
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
  session_ms: Generated<number>;
  llm_input_tokens: Generated<number>;
  llm_output_tokens: Generated<number>;
  llm_millicredits: Generated<number>;
  tts_chars: Generated<number>;
  stt_ms: Generated<number>;
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
}

/** One persisted transcript turn of a live session; `id` is minted by the worker. */
export interface AgentSessionMessagesTable {
  id: string;
  session_id: string;
  role: 'user' | 'agent';
  text: string;
  interrupted: number;
  created_at: string;
}
