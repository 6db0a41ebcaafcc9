/** Who wrote a memory: the Agent's `remember` tool, or the workspace's backend over the API. */
export type AgentMemorySource = 'agent' | 'api';

/** One thing a managed Agent remembers about one end user. */
export interface AgentMemoriesTable {
  /** UUIDv7. */
  id: string;
  agent_id: string;
  workspace_id: string;
  environment: 'production' | 'development';
  end_user_id: string;
  text: string;
  source: AgentMemorySource;
  created_at: string;
}
