import { z } from 'zod';
import type { Environment } from '../app/config.ts';
import { ApiError } from '../errors.ts';
import { publicHttpBase } from '../http/public-url.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import type { HttpRequest } from '../http/types.ts';
import {
  AVATARS,
  type Avatar,
  avatarImage,
  avatarPreviewPath,
  findAvatar,
} from './avatars/catalog.ts';

export const avatarSchema = z
  .object({
    id: z.string().describe('Pass as an Agent’s `avatar_id`.'),
    name: z.string(),
    image_url: z.string().describe('Preview image (PNG); public, no credential needed.'),
    idle_video_url: z.string().optional().describe('Idle animation, when the avatar has one.'),
  })
  .meta({ title: 'Avatar' });

/** The public face of an avatar; `image_url` is absolute so browsers on any origin load it. */
export function avatarEntry(
  avatar: Avatar,
  request: HttpRequest,
  publicBaseUrls: Partial<Record<Environment, string>>,
): z.infer<typeof avatarSchema> {
  const base = publicHttpBase(request, publicBaseUrls[request.environment]);
  return { id: avatar.id, name: avatar.name, image_url: `${base}${avatarPreviewPath(avatar.id)}` };
}

/** Preview images never change for an id: browsers and proxies may keep them a day. */
const PREVIEW_CACHE_CONTROL = 'public, max-age=86400';

/** `GET /v1/avatars` (workspace key) and `GET /v1/avatars/{avatarId}/preview` (public). */
export function avatarRoutes(publicBaseUrls: Partial<Record<Environment, string>>): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/avatars',
      operationId: 'listAvatars',
      summary: 'The built-in avatar catalog Agents choose from.',
      tags: ['avatars'],
      auth: { kind: 'workspace_key', capability: 'agents' },
      responses: {
        200: { description: 'The avatars.', schema: z.object({ avatars: z.array(avatarSchema) }) },
      },
      handle: async ({ request }) => ({
        status: 200,
        body: { avatars: AVATARS.map((avatar) => avatarEntry(avatar, request, publicBaseUrls)) },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/avatars/:avatarId/preview',
      operationId: 'getAvatarPreview',
      errors: ['not_found'],
      summary: 'Preview image of an avatar (PNG, 256 x 256). Public: browsers load it directly.',
      tags: ['avatars'],
      auth: { kind: 'none' },
      cors: 'any',
      responses: {
        200: {
          description: 'The picture.',
          contentType: 'image/png',
          headers: { ETag: 'Version of the picture.', 'Cache-Control': PREVIEW_CACHE_CONTROL },
        },
        304: { description: 'The cached picture is current (`If-None-Match`).' },
      },
      handle: async ({ request }) => {
        const avatar = findAvatar(request.params.avatarId ?? '');
        if (!avatar) throw new ApiError('not_found', 'No such avatar.');
        const image = avatarImage(avatar);
        const headers = { etag: image.etag, 'cache-control': PREVIEW_CACHE_CONTROL };
        const ifNoneMatch = request.headers['if-none-match'];
        if (ifNoneMatch?.split(',').some((tag) => tag.trim() === image.etag)) {
          return { status: 304, headers };
        }
        return {
          status: 200,
          headers: { ...headers, 'content-type': 'image/png' },
          body: image.png,
        };
      },
    }),
  ];
}
