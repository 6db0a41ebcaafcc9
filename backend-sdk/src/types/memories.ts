import type { ResponseJson } from './openapi.ts';

/** `GET /v1/agents/{agentId}/memories`: oldest first, at most 100. */
export type AgentMemoryList = ResponseJson<'listAgentMemories', 200>;

/** One fact an Agent remembers about one end user (its `memory_enabled` capability). */
export type AgentMemory = ResponseJson<'createAgentMemory', 201>;
