import { z } from 'zod';
import type { SessionRecordings } from '../agent-sessions/session-recordings.ts';
import { requireAuth } from '../auth/context.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import type { AgentInput, Agents } from './agents.ts';
import {
  agentBody,
  agentListQuerySchema,
  agentListSchema,
  agentSchema,
  agentSchemas,
} from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;
const TAGS = ['agents'];
const emptyBodySchema = z.strictObject({});

/** `/v1/agents` and `/v1/agents/{agentId}`: create, list, read, edit, delete, publish. */
export function agentRoutes(agents: Agents, recordings: SessionRecordings): AnyRoute[] {
  const schemas = agentSchemas();
  const scopeOf = (auth: Parameters<typeof requireAuth>[0]) => {
    const caller = requireAuth(auth);
    return { workspaceId: caller.workspaceId, environment: caller.environment };
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/agents',
      operationId: 'createAgent',
      errors: ['voice_not_found', 'not_found', 'conflict'],
      summary:
        'Create an Agent (draft revision 1); publish it to start sessions. A `thinking_level` the language model does not support is kept and runs as the nearest level the model supports.',
      tags: TAGS,
      auth: AUTH,
      body: schemas.create as unknown as z.ZodType<AgentInput>,
      responses: { 201: { description: 'The new Agent.', schema: agentSchema } },
      handle: async ({ auth, body }) => ({
        status: 201,
        body: agentBody(await agents.create(scopeOf(auth), body)),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agents',
      operationId: 'listAgents',
      summary:
        'Agents of the workspace and environment in creation order; Agents without a public voice selection are omitted.',
      tags: TAGS,
      auth: AUTH,
      query: agentListQuerySchema,
      responses: { 200: { description: 'One page of Agents.', schema: agentListSchema } },
      handle: async ({ auth, query }) => {
        const page = await agents.list(scopeOf(auth), query);
        return {
          status: 200,
          body: { agents: page.agents.map(agentBody), next_cursor: page.nextCursor },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agents/:agentId',
      operationId: 'getAgent',
      errors: ['not_found', 'agent_not_api_ready'],
      summary: 'One Agent; 409 agent_not_api_ready when it has no public voice selection.',
      tags: TAGS,
      auth: AUTH,
      responses: { 200: { description: 'The Agent.', schema: agentSchema } },
      handle: async ({ auth, request }) => ({
        status: 200,
        body: agentBody(await agents.getReady(scopeOf(auth), request.params.agentId ?? '')),
      }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/v1/agents/:agentId',
      operationId: 'updateAgent',
      errors: ['not_found', 'voice_not_found', 'conflict'],
      summary:
        'Edit an Agent (a new draft revision): `character_card` replaces the whole card; legacy character fields edit one card field each. A `thinking_level` the language model does not support is kept and runs as the nearest level the model supports.',
      tags: TAGS,
      auth: AUTH,
      body: schemas.patch as unknown as z.ZodType<AgentInput>,
      responses: { 200: { description: 'The Agent after the edit.', schema: agentSchema } },
      handle: async ({ auth, request, body }) => ({
        status: 200,
        body: agentBody(await agents.update(scopeOf(auth), request.params.agentId ?? '', body)),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/agents/:agentId',
      operationId: 'deleteAgent',
      errors: ['not_found'],
      summary:
        'Delete an Agent with its revisions, publications, sessions, their recordings, documents and memories.',
      tags: TAGS,
      auth: { ...AUTH, permission: 'delete_agents' },
      responses: { 204: { description: 'Deleted.' } },
      handle: async ({ auth, request }) => {
        const scope = scopeOf(auth);
        const { sessionIds } = await agents.delete(scope, request.params.agentId ?? '');
        await recordings.erase(scope.workspaceId, sessionIds);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/agents/:agentId/publish',
      operationId: 'publishAgent',
      errors: ['not_found', 'agent_not_api_ready', 'conflict'],
      summary:
        'Publish the current draft revision; sessions run the active publication. Needs a public voice selection. Body empty or `{}`.',
      tags: TAGS,
      auth: AUTH,
      requestContent: { 'application/json': emptyBodySchema },
      responses: {
        200: { description: 'The Agent with its new active publication.', schema: agentSchema },
      },
      handle: async ({ auth, request }) => {
        if (request.body.byteLength > 0) {
          validate(
            emptyBodySchema,
            parseJsonBody(request.body, request.headers['content-type']),
            'body',
          );
        }
        return {
          status: 200,
          body: agentBody(await agents.publish(scopeOf(auth), request.params.agentId ?? '')),
        };
      },
    }),
  ];
}
