import { z } from 'zod';
import { requireAuth } from '../auth/context.ts';
import { bodyBytes } from '../http/request-body.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { HttpResponse } from '../http/types.ts';
import type { Agents } from './agents.ts';
import { cardDownload, cardExportQuerySchema, cardFromUpload } from './card-transfer.ts';
import { characterCardOutputSchema } from './character-card.ts';
import { MAX_PNG_BYTES } from './png.ts';
import { agentBody, agentSchema } from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;

/**
 * Character card files: import a card (JSON or PNG card image) as a new draft revision, and
 * export the draft's card in the same forms.
 */
export function cardRoutes(agents: Agents): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/agents/:agentId/character-card',
      operationId: 'importAgentCharacterCard',
      errors: ['not_found'],
      summary:
        'Replace the Agent’s card from a card file: V3, V2 or V1 JSON, or a PNG card image (`ccv3` chunk, else `chara`). A PNG without either chunk is 400 `invalid_request`.',
      tags: ['agents'],
      auth: AUTH,
      bodyLimitBytes: MAX_PNG_BYTES,
      spoolBody: true,
      requestContent: { 'application/json': z.looseObject({}), 'image/png': 'binary' },
      responses: { 200: { description: 'The Agent with the imported card.', schema: agentSchema } },
      handle: async ({ auth, request }) => {
        const caller = requireAuth(auth);
        const card = cardFromUpload(request.headers['content-type'], await bodyBytes(request));
        const scope = { workspaceId: caller.workspaceId, environment: caller.environment };
        const updated = await agents.update(scope, request.params.agentId ?? '', {
          character_card: card,
        });
        return { status: 200, body: agentBody(updated) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agents/:agentId/character-card',
      operationId: 'exportAgentCharacterCard',
      errors: ['not_found'],
      summary: 'The draft’s character card as V3 JSON, or as a PNG card image.',
      tags: ['agents'],
      auth: AUTH,
      query: cardExportQuerySchema,
      responses: {
        200: {
          description: 'The card file.',
          schema: characterCardOutputSchema,
          contentType: 'image/png',
        },
      },
      handle: async ({ auth, request, query }): Promise<HttpResponse> => {
        const caller = requireAuth(auth);
        const agent = await agents.get(
          { workspaceId: caller.workspaceId, environment: caller.environment },
          request.params.agentId ?? '',
        );
        return cardDownload(agent, query.format);
      },
    }),
  ];
}
