import type {
  ApiKeysTable,
  DeploymentSettingsTable,
  MembershipsTable,
  OperatorSessionsTable,
  UsersTable,
  WorkspaceCapabilitiesTable,
  WorkspacesTable,
} from './schema/accounts.ts';
import type {
  AgentPublicationsTable,
  AgentRevisionsTable,
  AgentSessionMessagesTable,
  AgentSessionsTable,
  AgentSessionTokenUsesTable,
  AgentsTable,
  ConversationMessagesTable,
  ConversationsTable,
  LlmRequestsTable,
} from './schema/agents.ts';
import type {
  CreditGrantsTable,
  ServiceInstancesTable,
  SynthesisRequestsTable,
} from './schema/billing.ts';
import type { AgentDocumentChunksTable, AgentDocumentsTable } from './schema/documents.ts';
import type {
  GoogleCalendarConnectionsTable,
  GoogleCalendarOAuthRequestsTable,
} from './schema/google-calendar.ts';
import type { AgentMemoriesTable } from './schema/memory.ts';
import type { StreamingSessionEventsTable, StreamingSessionsTable } from './schema/streaming.ts';
import type {
  TranscriptionSegmentsTable,
  TranscriptionSessionsTable,
} from './schema/transcription.ts';
import type {
  ProviderAccountsTable,
  VoiceCloneAttemptsTable,
  VoiceGenerationsTable,
  VoiceRoutesTable,
  VoiceSamplesTable,
  VoicesTable,
} from './schema/voices.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './schema/webhooks.ts';

export type * from './schema/accounts.ts';
export type * from './schema/agents.ts';
export type * from './schema/billing.ts';
export type * from './schema/documents.ts';
export type * from './schema/google-calendar.ts';
export type * from './schema/memory.ts';
export type * from './schema/streaming.ts';
export type * from './schema/transcription.ts';
export type * from './schema/voices.ts';
export type * from './schema/webhooks.ts';

import type { WorkspaceSearchKeysTable } from './schema/websearch.ts';

/**
 * Table types shared by both dialects. Timestamps are ISO 8601 UTC strings and booleans
 * are 0/1 integers so SQLite and PostgreSQL read and write the same values.
 */
export interface Database {
  workspaces: WorkspacesTable;
  deployment_settings: DeploymentSettingsTable;
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
  voice_generations: VoiceGenerationsTable;
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
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  agent_memories: AgentMemoriesTable;
  streaming_sessions: StreamingSessionsTable;
  streaming_session_events: StreamingSessionEventsTable;
  google_calendar_oauth_requests: GoogleCalendarOAuthRequestsTable;
  google_calendar_connections: GoogleCalendarConnectionsTable;
  agent_documents: AgentDocumentsTable;
  agent_document_chunks: AgentDocumentChunksTable;
  transcription_sessions: TranscriptionSessionsTable;
  transcription_segments: TranscriptionSegmentsTable;
  workspace_search_keys: WorkspaceSearchKeysTable;
}
