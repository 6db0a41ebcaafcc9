import { z } from 'zod';
import { requireAuth } from '../auth/context.ts';
import { ApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { HttpResponse } from '../http/types.ts';
import type { Agents } from './agents.ts';
import { avatarImage, DEFAULT_AVATAR_ID, findAvatar } from './avatars/catalog.ts';
import { cardFromJsonFile, cardFromPng, cardToPng } from './card-files.ts';
import { characterCardOutputSchema } from './character-card.ts';
import { MAX_PNG_BYTES } from './png.ts';
import { agentBody, agentSchema } from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;

const exportQuerySchema = z.strictObject({
  format: z
    .enum(['json', 'png'])
    .default('json')
    .describe('`json`: the V3 card; `png`: the avatar picture with `ccv3` and `chara` chunks.'),
});

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
        'Replace the Agent’s card from a card file: V3, V2 or V1 JSON, or a PNG card image (`ccv3` chunk, else `chara`).',
      tags: ['agents'],
      auth: AUTH,
      bodyLimitBytes: MAX_PNG_BYTES,
      requestContent: { 'application/json': z.looseObject({}), 'image/png': 'binary' },
      responses: { 200: { description: 'The Agent with the imported card.', schema: agentSchema } },
      handle: async ({ auth, request }) => {
        const caller = requireAuth(auth);
        const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (request.body.byteLength === 0) {
          throw new ApiError('invalid_request', 'Send a card as application/json or image/png.');
        }
        let card: ReturnType<typeof cardFromPng>;
        if (type === 'image/png') card = cardFromPng(request.body);
        else if (type === 'application/json' || type === '') card = cardFromJsonFile(request.body);
        else {
          throw new ApiError(
            'unsupported_media_type',
            'Send the card as application/json or image/png.',
          );
        }
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
      query: exportQuerySchema,
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
        const card = agent.draft.characterCard;
        const disposition = (ext: string) => `attachment; filename="${agent.slug}.${ext}"`;
        if (query.format === 'json') {
          return {
            status: 200,
            headers: { 'content-disposition': disposition('json'), 'cache-control': 'no-store' },
            body: card,
          };
        }
        const avatar = findAvatar(agent.draft.avatarId) ?? findAvatar(DEFAULT_AVATAR_ID);
        const picture = avatar ? avatarImage(avatar).png : Buffer.alloc(0);
        return {
          status: 200,
          headers: {
            'content-type': 'image/png',
            'content-disposition': disposition('png'),
            'cache-control': 'no-store',
          },
          body: cardToPng(card, picture),
        };
      },
    }),
  ];
}
