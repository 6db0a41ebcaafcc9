import type { Environment } from '../app/config.ts';
import type { LlmProviderName, ThinkingLevel } from '../llm/provider.ts';
import type { CharacterCard } from './character-card.ts';

/** What one draft revision holds: everything a session of the Agent would run. */
export interface AgentDraft {
  characterCard: CharacterCard;
  /** Public voice selection; null until one is chosen. */
  voiceId: string | null;
  avatarId: string;
  /** Null only when the deployment offered no language model at the time of the write. */
  llmProvider: LlmProviderName | null;
  llmModel: string | null;
  thinkingLevel: ThinkingLevel;
  webSearchEnabled: boolean;
  memoryEnabled: boolean;
  calendarEnabled: boolean;
  documentsEnabled: boolean;
  /**
   * The language the Agent's users speak (BCP 47, canonical case), which speech recognition
   * is told; null: the voice's language, else detection (src/stt/language.ts).
   */
  language: string | null;
  /** The Agent's sessions are recorded (stereo Ogg Opus: the user left, the agent right). */
  recordingEnabled: boolean;
}

/** One revision of an Agent's draft: its row id and its version, counted from 1. */
export interface RevisionRef {
  id: string;
  version: number;
}

/** The publication sessions run, as the Agent resource shows it. */
export interface PublicationInfo {
  id: string;
  version: number;
  revision: RevisionRef;
  memoryEnabled: boolean;
  calendarEnabled: boolean;
  documentsEnabled: boolean;
  createdAt: string;
}

/** An Agent with its current draft revision and active publication. */
export interface AgentRecord {
  id: string;
  workspaceId: string;
  environment: Environment;
  slug: string;
  draft: AgentDraft;
  draftRevision: RevisionRef;
  activePublication: PublicationInfo | null;
  createdAt: string;
  updatedAt: string;
}

/** Everything a session of a published Agent runs: the snapshot of its active publication. */
export interface PublishedAgent extends AgentDraft {
  agentId: string;
  workspaceId: string;
  environment: Environment;
  slug: string;
  publication: PublicationInfo;
}

/** The result of an edit: a new slug and/or draft. */
export interface AgentEdit {
  slug?: string;
  draft: AgentDraft;
}
