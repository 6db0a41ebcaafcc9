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
  agents: AgentsTable;
  agent_revisions: AgentRevisionsTable;
  agent_publications: AgentPublicationsTable;
  agent_session_token_uses: AgentSessionTokenUsesTable;
  credit_grants: CreditGrantsTable;
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

/** One provider-and-model pairing serving a voice. Never shown to synthesis clients. */
export interface VoiceRoutesTable {
  id: string;
  voice_id: string;
  provider: UpstreamProviderName;
  model: string;
  provider_voice_id: string;
  /** Workspace provider account; null uses the deployment's credential. */
  provider_account_id: string | null;
  state: VoiceRouteState;
  enabled: number;
  created_at: string;
  updated_at: string;
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
