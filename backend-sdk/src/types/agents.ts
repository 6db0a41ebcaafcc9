import type { ResponseJson } from './openapi.ts';

/** Fields of a character card V3 (`data`). */
export interface CharacterCardData {
  name: string;
  description: string;
  personality: string;
  scenario: string;
  first_mes: string;
  mes_example: string;
  system_prompt: string;
  post_history_instructions: string;
  creator_notes: string;
  creator: string;
  character_version: string;
  alternate_greetings: string[];
  tags: string[];
  group_only_greetings: string[];
  extensions: Record<string, unknown>;
}

/** A complete character card V3, as the service returns it. */
export interface CharacterCard {
  spec: 'chara_card_v3';
  spec_version: '3.0';
  data: CharacterCardData;
}

/** A card to write: omitted `data` fields take their empty defaults. */
export interface CharacterCardInput {
  spec: 'chara_card_v3';
  spec_version: '3.0';
  data: Partial<CharacterCardData>;
}

/** A revision or publication reference. */
export interface RevisionRef {
  id: string;
  version: number;
}

/** The Agent's active publication: what sessions run. */
export interface AgentPublication {
  id: string;
  version: number;
  revision: RevisionRef;
  memory_enabled: boolean;
  calendar_enabled: boolean;
  documents_enabled: boolean;
  created_at: string;
}

/**
 * An Agent (`GET /v1/agents/{agentId}` and list entries): its draft (card, voice, language
 * model, switches), `draft_revision` and `active_publication` (what sessions run, null
 * until published). `voice_id` is null until a public voice is selected; `display_name`,
 * `description`, `persona` and `instructions` are the legacy names of card fields.
 */
export type Agent = ResponseJson<'getAgent', 200>;

/**
 * Fields of `PATCH /v1/agents/{agentId}`. `character_card` replaces the whole card; the
 * legacy character fields edit one card field each and cannot be mixed with it.
 */
export interface AgentUpdate {
  slug?: string;
  /** Public voice selection; null clears it. */
  voice_id?: string | null;
  avatar_id?: string;
  character_card?: CharacterCardInput;
  /** Every provider the software supports; `client.models.list()` says which this deployment offers. */
  llm_provider?: 'openai' | 'anthropic' | 'local';
  llm_model?: string;
  thinking_level?: 'off' | 'low' | 'medium' | 'high';
  web_search_enabled?: boolean;
  memory_enabled?: boolean;
  calendar_enabled?: boolean;
  documents_enabled?: boolean;
  /**
   * BCP 47 tag of the language the Agent's users speak (`en`, `es-MX`), which speech
   * recognition is told; null clears it (the voice's language, else detection).
   */
  language?: string | null;
  /**
   * Record the Agent's sessions: one stereo Ogg Opus file per session (the user left,
   * the Agent right). Off by default; tell your users they are recorded.
   */
  recording_enabled?: boolean;
  display_name?: string;
  description?: string;
  persona?: string;
  instructions?: string;
}

/** Body of `POST /v1/agents`. */
export interface AgentCreate extends AgentUpdate {
  /** Unique per workspace and environment: lower-case letters, digits, inner hyphens. */
  slug: string;
}

/** Query of `GET /v1/agents`. */
export interface AgentListQuery {
  /** 1 to 100; default 50. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Only the Agent with this slug. */
  slug?: string;
}

/** One page of `GET /v1/agents`; pass `next_cursor` as `cursor` for the next (null on the last). */
export type AgentList = ResponseJson<'listAgents', 200>;
