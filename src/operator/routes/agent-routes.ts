import { z } from 'zod';
import type { AgentRecord } from '../../agents/agent-store.ts';
import type { AgentInput, Agents } from '../../agents/agents.ts';
import { AVATARS, avatarPreviewPath } from '../../agents/avatars/catalog.ts';
import { agentBody, agentSchemas } from '../../agents/schemas.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { parseJsonBody, validate } from '../../http/validate.ts';
import { THINKING_LEVELS } from '../../llm/provider.ts';
import type { LlmCatalog } from '../../llm/registry.ts';
import { AGENT_BUILDER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

/** Rows read from the store per query while listing every Agent. */
const LIST_BATCH = 100;
const emptyBodySchema = z.strictObject({});

/** The member's workspace in the environment of the listener the request came in on. */
function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

/** An Agent as `/v1` shows it, with `api_ready`: whether clients of the scope can use it. */
async function listedAgent(agents: Agents, scope: TenantScope, row: AgentRecord) {
  return { ...agentBody(row), api_ready: await agents.hasPublicVoice(scope, row.draft.voiceId) };
}

/**
 * The language models this deployment offers, as the Agent editor chooses them: each
 * configured provider with its models and the thinking levels each model allows.
 */
function llmModelsBody(llm: LlmCatalog) {
  return llm.list().map((spec) => ({
    name: spec.name,
    models: spec.models.map((model) => ({
      name: model.name,
      thinking_levels: THINKING_LEVELS.filter((level) =>
        llm.allowsThinking(spec.name, model.name, level),
      ),
    })),
  }));
}

/**
 * Agents (the dashboard's Agents and Agent pages): list, read, create, edit and publish in
 * the member's workspace and the listener's environment, and the language models an Agent
 * may choose. Bodies and answers are those of `/v1/agents`; the list and the read also hold
 * Agents without a public voice, each marked with `api_ready`.
 */
export function agentRoutes(guard: OperatorGuard, agents: Agents, llm: LlmCatalog): AnyRoute[] {
  const schemas = agentSchemas();
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/agents',
      operationId: 'operatorListAgents',
      summary:
        'Every Agent of the workspace and environment in creation order, as GET /v1/agents/{id} shows it, with `api_ready`.',
      roles: EVERY_ROLE,
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const views = [];
        let afterId: string | undefined;
        for (;;) {
          const rows = await agents.store.list(scope.workspaceId, scope.environment, {
            afterId,
            limit: LIST_BATCH,
          });
          for (const row of rows) views.push(await listedAgent(agents, scope, row));
          if (rows.length < LIST_BATCH) break;
          afterId = rows.at(-1)?.id;
        }
        return { status: 200, body: { agents: views } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/agents/:agentId',
      operationId: 'operatorGetAgent',
      summary:
        'One Agent of the workspace and environment as the list shows it, with `api_ready`; 404 for any other Agent.',
      roles: EVERY_ROLE,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        const scope = scopeOf(member, request);
        const row = await agents.get(scope, request.params.agentId ?? '');
        return { status: 200, body: { agent: await listedAgent(agents, scope, row) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/avatars',
      operationId: 'operatorListAvatars',
      summary:
        'The built-in avatars an Agent chooses from, each with its preview image on this address.',
      roles: EVERY_ROLE,
      handle: async () => ({
        status: 200,
        body: {
          avatars: AVATARS.map((avatar) => ({
            id: avatar.id,
            name: avatar.name,
            image_url: avatarPreviewPath(avatar.id),
          })),
        },
      }),
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/llm-models',
      operationId: 'operatorListLlmModels',
      summary:
        'The language models this deployment offers: each provider with its models and the thinking levels each allows.',
      roles: EVERY_ROLE,
      handle: async () => ({ status: 200, body: { providers: llmModelsBody(llm) } }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/agents',
      operationId: 'operatorCreateAgent',
      summary: 'Creates an Agent (draft revision 1) with the body of POST /v1/agents.',
      roles: AGENT_BUILDER_ROLES,
      body: schemas.create as unknown as z.ZodType<AgentInput>,
      errors: ['invalid_request', 'voice_not_found', 'not_found', 'conflict'],
      handle: async ({ member, request, body }) => ({
        status: 201,
        body: { agent: agentBody(await agents.create(scopeOf(member, request), body)) },
      }),
    }),
    operatorRoute(guard, {
      method: 'PATCH',
      path: '/agents/:agentId',
      operationId: 'operatorUpdateAgent',
      summary: 'Edits an Agent (a new draft revision) with the body of PATCH /v1/agents/{id}.',
      roles: AGENT_BUILDER_ROLES,
      body: schemas.patch as unknown as z.ZodType<AgentInput>,
      errors: ['invalid_request', 'not_found', 'voice_not_found', 'conflict'],
      handle: async ({ member, request, body }) => ({
        status: 200,
        body: {
          agent: agentBody(
            await agents.update(scopeOf(member, request), request.params.agentId ?? '', body),
          ),
        },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/agents/:agentId/publish',
      operationId: 'operatorPublishAgent',
      summary:
        'Publishes the current draft revision; 409 without a public voice or an offered language model.',
      roles: AGENT_BUILDER_ROLES,
      errors: ['not_found', 'agent_not_api_ready', 'conflict'],
      handle: async ({ member, request }) => {
        if (request.body.byteLength > 0) {
          // Body empty or `{}`, as on POST /v1/agents/{id}/publish.
          validate(
            emptyBodySchema,
            parseJsonBody(request.body, request.headers['content-type']),
            'body',
          );
        }
        return {
          status: 200,
          body: {
            agent: agentBody(
              await agents.publish(scopeOf(member, request), request.params.agentId ?? ''),
            ),
          },
        };
      },
    }),
  ];
}
