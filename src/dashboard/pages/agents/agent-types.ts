export { AGENT_BUILDER_ROLES } from '../../types.ts';

/** A revision of an Agent: its id and its number. */
export interface AgentRevision {
  id: string;
  version: number;
}

/** An Agent as `GET /operator/api/agents` lists it (the `/v1` Agent and `api_ready`). */
export interface Agent {
  id: string;
  slug: string;
  display_name: string;
  description: string;
  instructions: string;
  voice_id: string | null;
  llm_provider: string | null;
  llm_model: string | null;
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

/** A voice clients can use (`GET /operator/api/catalog`, the list of `GET /v1/voices`). */
export interface AgentVoice {
  id: string;
  name: string;
}
