import type { Agents } from '../../agents/agents.ts';
import { cardDownload, cardExportQuerySchema, cardFromUpload } from '../../agents/card-transfer.ts';
import { MAX_PNG_BYTES } from '../../agents/png.ts';
import { agentBody } from '../../agents/schemas.ts';
import { bodyBytes } from '../../http/request-body.ts';
import type { AnyRoute } from '../../http/route.ts';
import { AGENT_BUILDER_ROLES } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

/**
 * An Agent's character card as a file (the dashboard's Agent page): import a card file as
 * a new draft revision, download the draft's card. The rules of
 * `/v1/agents/{id}/character-card`, in the member's workspace and the listener's environment.
 */
export function agentCardRoutes(guard: OperatorGuard, agents: Agents): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'POST',
      path: '/agents/:agentId/character-card',
      operationId: 'operatorImportAgentCard',
      summary:
        'Replaces the Agent’s card from a card file (V3, V2 or V1 JSON, or a PNG card image) as a new draft revision.',
      roles: AGENT_BUILDER_ROLES,
      bodyLimitBytes: MAX_PNG_BYTES,
      spoolBody: true,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request }) => {
        const card = cardFromUpload(request.headers['content-type'], await bodyBytes(request));
        const updated = await agents.update(
          { workspaceId: member.workspaceId, environment: request.environment },
          request.params.agentId ?? '',
          { character_card: card },
        );
        return { status: 200, body: { agent: agentBody(updated) } };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/agents/:agentId/character-card',
      operationId: 'operatorExportAgentCard',
      summary: 'The draft’s character card as V3 JSON, or as a PNG card image (`format=png`).',
      roles: EVERY_ROLE,
      query: cardExportQuerySchema,
      errors: ['not_found', 'invalid_request'],
      handle: async ({ member, request, query }) => {
        const agent = await agents.get(
          { workspaceId: member.workspaceId, environment: request.environment },
          request.params.agentId ?? '',
        );
        return cardDownload(agent, query.format);
      },
    }),
  ];
}
