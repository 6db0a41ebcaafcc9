import { z } from 'zod';
import type { Agents } from '../agents/agents.ts';
import type { AgentToolbox } from '../agents/capabilities/toolbox.ts';
import { requireAuth } from '../auth/context.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { parseJsonBody, validate } from '../http/validate.ts';
import type { AgentSessionTokens } from './session-tokens.ts';

const mintBodySchema = z
  .strictObject({
    end_user_id: z
      .uuid()
      .optional()
      .describe(
        'Your end user (UUID). Required when the published Agent has memory, documents or calendar enabled.',
      ),
  })
  .meta({ title: 'AgentSessionTokenRequest' });

const tokenResponseSchema = z
  .object({
    token: z.string().describe('Valid 15 minutes; starts exactly one conversation.'),
    expires_at: z.string(),
    agent_id: z.string(),
    capabilities: z.object({
      managed_voice_agent: z.literal(true),
      transport: z.literal('webrtc'),
    }),
  })
  .meta({ title: 'AgentSessionToken' });

/** `POST /v1/agents/{agentId}/session-tokens`: a backend mints a token for one conversation. */
export function sessionTokenRoutes(
  agents: Agents,
  tokens: AgentSessionTokens,
  toolbox: Pick<AgentToolbox, 'requireEndUser'>,
): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/agents/:agentId/session-tokens',
      operationId: 'createAgentSessionToken',
      errors: [
        'not_found',
        'agent_not_published',
        'agent_not_api_ready',
        'memory_identity_required',
        'documents_identity_required',
        'calendar_identity_required',
      ],
      summary:
        'Mint an Agent session token (15 minutes, one conversation) for a published Agent. Body `{}` or `{end_user_id}`. What the schema cannot state: `end_user_id` is required when the published Agent has memory, documents or calendar enabled (400 `memory_identity_required`, `documents_identity_required`, `calendar_identity_required`).',
      tags: ['agents'],
      auth: { kind: 'workspace_key', capability: 'agents' },
      requestContent: { 'application/json': mintBodySchema },
      responses: {
        201: {
          description: 'A session token.',
          schema: tokenResponseSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      handle: async ({ request, auth }) => {
        const caller = requireAuth(auth);
        const body =
          request.body.byteLength > 0
            ? validate(
                mintBodySchema,
                parseJsonBody(request.body, request.headers['content-type']),
                'body',
              )
            : {};
        const scope = { workspaceId: caller.workspaceId, environment: caller.environment };
        const agentId = request.params.agentId ?? '';
        const agent = await agents.get(scope, agentId);
        const published = await agents.activePublication(scope, agentId);
        if (!published) {
          if (!(await agents.hasPublicVoice(scope, agent.draft.voiceId))) {
            throw new ApiError('agent_not_api_ready', 'The Agent has no public voice selection.');
          }
          throw new ApiError(
            'agent_not_published',
            'Publish the Agent before minting session tokens.',
          );
        }
        if (!(await agents.hasPublicVoice(scope, published.voiceId))) {
          throw new ApiError(
            'agent_not_api_ready',
            'The published voice is no longer in the catalog; select a voice and publish again.',
          );
        }
        const endUserId = body.end_user_id?.toLowerCase();
        toolbox.requireEndUser(published, endUserId);
        const { token, expiresAt } = await tokens.mint({
          agentId,
          workspaceId: caller.workspaceId,
          environment: caller.environment,
          keyId: caller.keyId,
          endUserId,
        });
        return {
          status: 201,
          headers: { 'cache-control': 'no-store' },
          body: {
            token,
            expires_at: expiresAt.toISOString(),
            agent_id: agentId,
            capabilities: { managed_voice_agent: true, transport: 'webrtc' },
          },
        };
      },
    }),
  ];
}
