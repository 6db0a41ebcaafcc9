import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type { AgentMemory, AgentMemoryList } from '../types/memories.ts';

const path = (agentId: string, rest = '') =>
  `/v1/agents/${encodeURIComponent(agentId)}/memories${rest}`;

/**
 * `/v1/agents/{agentId}/memories`: what an Agent with memory enabled remembers about each
 * of your end users, to read, seed and erase.
 */
export class AgentMemories {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * What the Agent remembers about one end user, oldest first.
   *
   * @example
   * ```ts
   * const { memories } = await client.agents.memories.list(agentId, endUserId);
   * ```
   */
  async list(
    agentId: string,
    endUserId: string,
    options?: RequestOptions,
  ): Promise<AgentMemoryList> {
    const call = {
      method: 'GET',
      path: path(agentId),
      query: { end_user_id: endUserId },
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentMemoryList>(this.http, call, options)).body;
  }

  /**
   * Adds a fact the Agent remembers in its next conversations with the end user. The same
   * text twice is kept once, so a retry is safe.
   *
   * @example
   * ```ts
   * await client.agents.memories.create(agentId, { end_user_id: endUserId, text: 'Is vegetarian.' });
   * ```
   */
  async create(
    agentId: string,
    body: { end_user_id: string; text: string },
    options?: RequestOptions,
  ): Promise<AgentMemory> {
    const call = {
      method: 'POST',
      path: path(agentId),
      json: body,
      expect: 'json',
      idempotent: true,
    } as const;
    return (await send<AgentMemory>(this.http, call, options)).body;
  }

  /**
   * Forgets one memory.
   *
   * @example
   * ```ts
   * await client.agents.memories.delete(agentId, memory.id);
   * ```
   */
  async delete(agentId: string, memoryId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: path(agentId, `/${encodeURIComponent(memoryId)}`),
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }

  /**
   * Forgets everything the Agent remembers about one end user (for example when they
   * delete their account).
   *
   * @example
   * ```ts
   * await client.agents.memories.deleteAll(agentId, endUserId);
   * ```
   */
  async deleteAll(agentId: string, endUserId: string, options?: RequestOptions): Promise<void> {
    const call = {
      method: 'DELETE',
      path: path(agentId),
      query: { end_user_id: endUserId },
      expect: 'none',
      idempotent: true,
    } as const;
    await send<void>(this.http, call, options);
  }
}
