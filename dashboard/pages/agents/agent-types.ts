export { AGENT_BUILDER_ROLES } from '../../types.ts';

import type {
  CharacterCard,
  CharacterCardData,
  Agent as PublicAgent,
  RevisionRef,
} from '../../../backend-sdk/src/types/agents.ts';

// The Agent resource's types are the server library's: one definition of the wire shape.
export type { CharacterCard, CharacterCardData };

/** A revision of an Agent: its id and its number. */
export type AgentRevision = RevisionRef;

/** A thinking level an Agent may ask of its language model. */
export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high';

/**
 * An Agent as `GET /operator/api/agents` lists it and `GET /operator/api/agents/{id}`
 * answers it: the `/v1` Agent, and `api_ready`, false while the Agent has no voice clients
 * of this environment can use.
 */
export type Agent = Omit<PublicAgent, 'thinking_level'> & {
  thinking_level: ThinkingLevel;
  api_ready: boolean;
};

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
