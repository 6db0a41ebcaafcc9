import { type AgentMemories, MEMORY_LIMITS } from '../../agents/capabilities/memory/memories.ts';
import {
  type CreateMemoryBody,
  createMemorySchema,
  type MemoryQuery,
  memoryBody,
  memoryQuerySchema,
} from '../../agents/capabilities/memory/schemas.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { AGENT_BUILDER_ROLES, END_USER_DATA_READER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { operatorRoute } from '../route.ts';

const NO_STORE = { 'cache-control': 'no-store' };
const LIMITS = {
  memories_per_end_user: MEMORY_LIMITS.memoriesPerEndUser,
  memory_chars: MEMORY_LIMITS.memoryChars,
};

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

const agentIdOf = (request: HttpRequest) => request.params.agentId ?? '';

/**
 * What an Agent remembers about one end user (the Agent page's Memory section) in the
 * member's workspace and the listener's environment, with the rules and bodies of
 * `/v1/agents/{id}/memories`: what an Agent knows of an end user is end users' data, read
 * by the roles `mayReadEndUserData` admits, as transcripts are; Owner, Admin and Builder add
 * and forget.
 */
export function memoryRoutes(guard: OperatorGuard, memories: AgentMemories): AnyRoute[] {
  return [
    operatorRoute<undefined, MemoryQuery>(guard, {
      method: 'GET',
      path: '/agents/:agentId/memories',
      operationId: 'operatorListAgentMemories',
      summary:
        'What the Agent remembers about the end user `end_user_id`, oldest first, as GET /v1/agents/{id}/memories answers it, with the `limits`.',
      roles: END_USER_DATA_READER_ROLES,
      query: memoryQuerySchema,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, query }) => {
        const owner = await memories.owner(
          scopeOf(member, request),
          agentIdOf(request),
          query.end_user_id,
        );
        const listed = await memories.list(owner);
        return {
          status: 200,
          headers: NO_STORE,
          body: { end_user_id: owner.endUserId, memories: listed.map(memoryBody), limits: LIMITS },
        };
      },
    }),
    operatorRoute<CreateMemoryBody>(guard, {
      method: 'POST',
      path: '/agents/:agentId/memories',
      operationId: 'operatorCreateAgentMemory',
      summary:
        'Adds a fact the Agent remembers about an end user (source `api`; the body of POST /v1/agents/{id}/memories).',
      roles: AGENT_BUILDER_ROLES,
      body: createMemorySchema,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, body }) => {
        const owner = await memories.owner(
          scopeOf(member, request),
          agentIdOf(request),
          body.end_user_id,
        );
        const { memory } = await memories.add(owner, body.text);
        return { status: 201, headers: NO_STORE, body: { memory: memoryBody(memory) } };
      },
    }),
    operatorRoute<undefined, MemoryQuery>(guard, {
      method: 'DELETE',
      path: '/agents/:agentId/memories',
      operationId: 'operatorDeleteAgentMemories',
      summary: 'Forgets everything the Agent remembers about the end user `end_user_id`.',
      roles: AGENT_BUILDER_ROLES,
      query: memoryQuerySchema,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, query }) => {
        const owner = await memories.owner(
          scopeOf(member, request),
          agentIdOf(request),
          query.end_user_id,
        );
        return { status: 200, body: { forgotten: await memories.forgetAll(owner) } };
      },
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/agents/:agentId/memories/:memoryId',
      operationId: 'operatorDeleteAgentMemory',
      summary: 'Forgets one memory of the Agent.',
      roles: AGENT_BUILDER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        await memories.forget(
          scopeOf(member, request),
          agentIdOf(request),
          request.params.memoryId ?? '',
        );
        return { status: 200, body: { deleted: true } };
      },
    }),
  ];
}
