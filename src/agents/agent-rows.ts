import type { Selectable } from 'kysely';
import type { Environment } from '../app/config.ts';
import type { AgentRevisionsTable } from '../db/schema.ts';
import type { LlmProviderName, ThinkingLevel } from '../llm/provider.ts';
import type { AgentDraft, AgentRecord } from './agent-records.ts';
import { parseStoredCard } from './character-card.ts';

/** One `agent_revisions` row. */
export type RevisionRow = Selectable<AgentRevisionsTable>;

/** An `agents` row joined with its draft revision and active publication. */
export type AgentRow = RevisionRow & {
  agent_id_: string;
  workspace_id: string;
  environment: Environment;
  slug: string;
  agent_created_at: string;
  agent_updated_at: string;
  publication_id: string | null;
  publication_version: number | null;
  p_memory: number | null;
  p_calendar: number | null;
  p_documents: number | null;
  publication_created_at: string | null;
  publication_revision_id: string | null;
  publication_revision_version: number | null;
};

/** The Agent resource of a joined row. */
export function toRecord(row: AgentRow): AgentRecord {
  return {
    id: row.agent_id_,
    workspaceId: row.workspace_id,
    environment: row.environment,
    slug: row.slug,
    draft: toDraft(row),
    draftRevision: { id: row.id, version: Number(row.version) },
    activePublication:
      row.publication_id === null
        ? null
        : {
            id: row.publication_id,
            version: Number(row.publication_version),
            revision: {
              id: row.publication_revision_id as string,
              version: Number(row.publication_revision_version),
            },
            memoryEnabled: Number(row.p_memory) === 1,
            calendarEnabled: Number(row.p_calendar) === 1,
            documentsEnabled: Number(row.p_documents) === 1,
            createdAt: row.publication_created_at as string,
          },
    createdAt: row.agent_created_at,
    updatedAt: row.agent_updated_at,
  };
}

/** The draft a revision row holds. */
export function toDraft(row: RevisionRow): AgentDraft {
  return {
    characterCard: parseStoredCard(row.character_card),
    voiceId: row.voice_id,
    avatarId: row.avatar_id,
    llmProvider: row.llm_provider as LlmProviderName | null,
    llmModel: row.llm_model,
    thinkingLevel: row.thinking_level as ThinkingLevel,
    webSearchEnabled: Number(row.web_search_enabled) === 1,
    memoryEnabled: Number(row.memory_enabled) === 1,
    calendarEnabled: Number(row.calendar_enabled) === 1,
    documentsEnabled: Number(row.documents_enabled) === 1,
    language: row.language ?? null,
    recordingEnabled: Number(row.recording_enabled) === 1,
  };
}

/** The `agent_revisions` row that stores `draft` as revision `version` of the Agent. */
export function revisionRow(
  id: string,
  agentId: string,
  version: number,
  draft: AgentDraft,
  now: string,
): AgentRevisionsTable {
  return {
    id,
    agent_id: agentId,
    version,
    character_card: JSON.stringify(draft.characterCard),
    voice_id: draft.voiceId,
    avatar_id: draft.avatarId,
    llm_provider: draft.llmProvider,
    llm_model: draft.llmModel,
    thinking_level: draft.thinkingLevel,
    web_search_enabled: bit(draft.webSearchEnabled),
    memory_enabled: bit(draft.memoryEnabled),
    calendar_enabled: bit(draft.calendarEnabled),
    documents_enabled: bit(draft.documentsEnabled),
    language: draft.language,
    recording_enabled: bit(draft.recordingEnabled),
    created_at: now,
  };
}

/** Booleans are stored as 0/1 on both dialects. */
export function bit(value: boolean): number {
  return value ? 1 : 0;
}
