import { z } from 'zod';
import { ApiError, unsupportedMediaTypeError } from '../errors.ts';
import type { AgentRecord } from './agent-records.ts';
import { avatarImage, DEFAULT_AVATAR_ID, findAvatar } from './avatars/catalog.ts';
import { cardFromJsonFile, cardFromPng, cardToPng } from './card-files.ts';
import type { CharacterCard } from './character-card.ts';

export const cardExportQuerySchema = z.strictObject({
  format: z
    .enum(['json', 'png'])
    .default('json')
    .describe('`json`: the V3 card; `png`: the avatar picture with `ccv3` and `chara` chunks.'),
});

/** The card in an uploaded card file: V3, V2 or V1 JSON, or a PNG card image. */
export function cardFromUpload(contentType: string | undefined, body: Buffer): CharacterCard {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (body.byteLength === 0) {
    throw new ApiError('invalid_request', 'Send a card as application/json or image/png.');
  }
  if (type === 'image/png') return cardFromPng(body);
  if (type === 'application/json' || type === '') return cardFromJsonFile(body);
  throw unsupportedMediaTypeError('Send the card as application/json or image/png.');
}

/** A card file to download: its status, headers (name, type, caching) and contents. */
export interface CardDownload {
  status: 200;
  headers: Record<string, string>;
  body: CharacterCard | Buffer;
}

/** The draft's card as a file to download: V3 JSON, or a PNG card image of its avatar. */
export function cardDownload(agent: AgentRecord, format: 'json' | 'png'): CardDownload {
  const card = agent.draft.characterCard;
  const disposition = (ext: string) => `attachment; filename="${agent.slug}.${ext}"`;
  if (format === 'json') {
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
}
