import { requireAuth } from '../../../auth/context.ts';
import { type AnyRoute, defineRoute } from '../../../http/route.ts';
import type { HttpRequest } from '../../../http/types.ts';
import type { Agents } from '../../agents.ts';
import { AgentMemories } from './memories.ts';
import { MAX_MEMORIES_PER_END_USER, type MemoryOwner, type MemoryStore } from './memory-store.ts';
import {
  type CreateMemoryBody,
  createMemorySchema,
  type MemoryQuery,
  memoryBody,
  memoryListSchema,
  memoryQuerySchema,
  memorySchema,
} from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;
const TAGS = ['agents'];
const NO_STORE = { 'cache-control': 'no-store' };

/**
 * `/v1/agents/{agentId}/memories`: what an Agent remembers about each end user (its
 * `memory_enabled` capability), for the workspace's backend to read, seed and erase.
 */
export function memoryRoutes(agents: Agents, store: MemoryStore): AnyRoute[] {
  const memories = new AgentMemories(agents, store);
  const scopeOf = (auth: Parameters<typeof requireAuth>[0]) => {
    const caller = requireAuth(auth);
    return { workspaceId: caller.workspaceId, environment: caller.environment };
  };
  /** The owner of the memories the request names, once the Agent is known to the caller. */
  const ownerOf = (
    auth: Parameters<typeof requireAuth>[0],
    request: HttpRequest,
    endUserId: string,
  ): Promise<MemoryOwner> => memories.owner(scopeOf(auth), request.params.agentId ?? '', endUserId);
  return [
    defineRoute<undefined, MemoryQuery>({
      method: 'GET',
      path: '/v1/agents/:agentId/memories',
      operationId: 'listAgentMemories',
      summary: `What the Agent remembers about one end user (at most ${MAX_MEMORIES_PER_END_USER}, oldest first).`,
      tags: TAGS,
      auth: AUTH,
      query: memoryQuerySchema,
      responses: { 200: { description: 'The memories.', schema: memoryListSchema } },
      errors: ['not_found'],
      handle: async ({ auth, request, query }) => {
        const owner = await ownerOf(auth, request, query.end_user_id);
        const listed = await memories.list(owner);
        return {
          status: 200,
          headers: NO_STORE,
          body: { end_user_id: owner.endUserId, memories: listed.map(memoryBody) },
        };
      },
    }),
    defineRoute<CreateMemoryBody>({
      method: 'POST',
      path: '/v1/agents/:agentId/memories',
      operationId: 'createAgentMemory',
      summary: `Add a fact the Agent remembers about an end user in its next conversations (the same text twice is kept once; beyond ${MAX_MEMORIES_PER_END_USER} the oldest is forgotten).`,
      tags: TAGS,
      auth: AUTH,
      body: createMemorySchema,
      responses: { 201: { description: 'The memory.', schema: memorySchema } },
      errors: ['not_found'],
      handle: async ({ auth, request, body }) => {
        const owner = await ownerOf(auth, request, body.end_user_id);
        const { memory } = await memories.add(owner, body.text);
        return { status: 201, headers: NO_STORE, body: memoryBody(memory) };
      },
    }),
    defineRoute<undefined, MemoryQuery>({
      method: 'DELETE',
      path: '/v1/agents/:agentId/memories',
      operationId: 'deleteAgentMemories',
      summary: 'Forget everything the Agent remembers about one end user.',
      tags: TAGS,
      auth: AUTH,
      query: memoryQuerySchema,
      responses: { 204: { description: 'Forgotten.' } },
      errors: ['not_found'],
      handle: async ({ auth, request, query }) => {
        await memories.forgetAll(await ownerOf(auth, request, query.end_user_id));
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/agents/:agentId/memories/:memoryId',
      operationId: 'deleteAgentMemory',
      summary: 'Forget one memory.',
      tags: TAGS,
      auth: AUTH,
      responses: { 204: { description: 'Forgotten.' } },
      errors: ['not_found'],
      handle: async ({ auth, request }) => {
        await memories.forget(
          scopeOf(auth),
          request.params.agentId ?? '',
          request.params.memoryId ?? '',
        );
        return { status: 204 };
      },
    }),
  ];
}
