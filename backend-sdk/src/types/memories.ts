/** One fact an Agent remembers about one end user (its `memory_enabled` capability). */
export interface AgentMemory {
  id: string;
  agent_id: string;
  end_user_id: string;
  text: string;
  /** `agent`: saved by the Agent in a conversation; `api`: written by your backend. */
  source: 'agent' | 'api';
  created_at: string;
}

/** `GET /v1/agents/{agentId}/memories`: oldest first, at most 100. */
export interface AgentMemoryList {
  end_user_id: string;
  memories: AgentMemory[];
}
