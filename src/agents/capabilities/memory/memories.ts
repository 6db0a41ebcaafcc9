import type { TenantScope } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../errors.ts';
import type { Agents } from '../../agents.ts';
import {
  MAX_MEMORIES_PER_END_USER,
  MAX_MEMORY_CHARS,
  type MemoryOwner,
  type MemoryRecord,
  type MemoryStore,
  type SavedMemory,
} from './memory-store.ts';

/** What one Agent may remember about one end user. */
export const MEMORY_LIMITS = {
  memoriesPerEndUser: MAX_MEMORIES_PER_END_USER,
  memoryChars: MAX_MEMORY_CHARS,
} as const;

/**
 * What an Agent remembers about its end users, read and written by the workspace (its
 * backend through `/v1`, its members through the dashboard): an Agent of another workspace
 * or environment, or a memory of another Agent, is `404 not_found`. End user ids are
 * compared in lower case.
 */
export class AgentMemories {
  constructor(
    private readonly agents: Agents,
    private readonly store: MemoryStore,
  ) {}

  /** The memories' owner, once the scope is known to have the Agent. */
  async owner(scope: TenantScope, agentId: string, endUserId: string): Promise<MemoryOwner> {
    const agent = await this.agents.get(scope, agentId);
    return { ...scope, agentId: agent.id, endUserId: endUserId.toLowerCase() };
  }

  /** The end user's memories of the Agent, oldest first. */
  async list(owner: MemoryOwner): Promise<MemoryRecord[]> {
    return this.store.list(owner);
  }

  /** Saves a fact written by the workspace (source `api`). */
  async add(owner: MemoryOwner, text: string): Promise<SavedMemory> {
    return this.store.save(owner, text, 'api');
  }

  /** Forgets everything the Agent remembers about the end user; returns how many. */
  async forgetAll(owner: MemoryOwner): Promise<number> {
    return this.store.forgetAll(owner);
  }

  /** Forgets one memory of the Agent, whoever it is about; `404 not_found` when there is none. */
  async forget(scope: TenantScope, agentId: string, memoryId: string): Promise<MemoryRecord> {
    const agent = await this.agents.get(scope, agentId);
    const id = memoryId.toLowerCase();
    const memory = await this.store.get({ ...scope, agentId: agent.id }, id);
    if (
      !memory ||
      !(await this.store.forget({ ...scope, agentId: agent.id, endUserId: memory.endUserId }, id))
    ) {
      throw new ApiError('not_found', `No memory ${id} of this Agent.`);
    }
    return memory;
  }
}
