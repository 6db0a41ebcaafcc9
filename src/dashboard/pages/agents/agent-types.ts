export { AGENT_BUILDER_ROLES } from '../../types.ts';

/** A revision of an Agent: its id and its number. */
export interface AgentRevision {
  id: string;
  version: number;
}

/** The `data` of a character card V3 (spec "Character card"): every field present. */
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

/** A character card V3 as the API stores and returns it. */
export interface CharacterCard {
  spec: 'chara_card_v3';
  spec_version: '3.0';
  data: CharacterCardData;
}

/** A thinking level an Agent may ask of its language model. */
export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';

/**
 * An Agent as `GET /operator/api/agents` lists it and `GET /operator/api/agents/{id}`
 * answers it (the `/v1` Agent and `api_ready`).
 */
export interface Agent {
  id: string;
  slug: string;
  avatar_id: string;
  character_card: CharacterCard;
  /** Legacy: `character_card.data.name`. */
  display_name: string;
  /** Legacy: `character_card.data.creator_notes`. */
  description: string;
  /** Legacy: `character_card.data.description`. */
  persona: string;
  /** Legacy: `character_card.data.system_prompt`. */
  instructions: string;
  voice_id: string | null;
  llm_provider: string | null;
  llm_model: string | null;
  thinking_level: ThinkingLevel;
  web_search_enabled: boolean;
  memory_enabled: boolean;
  calendar_enabled: boolean;
  documents_enabled: boolean;
  /** BCP 47 tag of the language the Agent's users speak; null when unset. */
  language: string | null;
  draft_revision: AgentRevision;
  active_publication: {
    id: string;
    version: number;
    revision: AgentRevision;
    created_at: string;
  } | null;
  created_at: string;
  updated_at: string;
  /** False while the Agent has no voice clients of this environment can use. */
  api_ready: boolean;
}

/** A built-in avatar (`GET /operator/api/avatars`): its preview is on the same address. */
export interface AgentAvatar {
  id: string;
  name: string;
  image_url: string;
}

/** A voice clients can use (`GET /operator/api/catalog`, the list of `GET /v1/voices`). */
export interface AgentVoice {
  id: string;
  name: string;
}

/** A language-model provider this deployment offers (`GET /operator/api/llm-models`). */
export interface LlmProviderOption {
  name: string;
  models: { name: string; thinking_levels: ThinkingLevel[] }[];
}
