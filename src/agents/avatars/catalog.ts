import { createHash } from 'node:crypto';
import { type PortraitLook, renderPortrait } from './portrait.ts';

/** A built-in avatar: a portrait Agents can show. */
export interface Avatar {
  id: string;
  name: string;
  look: PortraitLook;
}

/** The avatar's picture: PNG bytes and an ETag of them. */
export interface AvatarImage {
  png: Buffer;
  etag: string;
}

/** The built-in avatars, in display order. The first is the default of new Agents. */
export const AVATARS: readonly Avatar[] = [
  {
    id: 'avatar_ada',
    name: 'Ada',
    look: {
      background: [64, 160, 160],
      skin: [241, 200, 170],
      hair: [74, 48, 36],
      hairStyle: 'long',
      shirt: [232, 110, 90],
      glasses: true,
    },
  },
  {
    id: 'avatar_kofi',
    name: 'Kofi',
    look: {
      background: [236, 178, 70],
      skin: [120, 78, 52],
      hair: [30, 24, 22],
      hairStyle: 'curly',
      shirt: [46, 64, 120],
    },
  },
  {
    id: 'avatar_mei',
    name: 'Mei',
    look: {
      background: [176, 160, 220],
      skin: [236, 204, 176],
      hair: [28, 26, 30],
      hairStyle: 'bun',
      shirt: [70, 150, 100],
    },
  },
  {
    id: 'avatar_lucas',
    name: 'Lucas',
    look: {
      background: [120, 180, 230],
      skin: [226, 182, 150],
      hair: [220, 184, 100],
      hairStyle: 'short',
      shirt: [110, 116, 126],
    },
  },
  {
    id: 'avatar_noor',
    name: 'Noor',
    look: {
      background: [226, 150, 170],
      skin: [196, 146, 110],
      hair: [60, 90, 110],
      hairStyle: 'scarf',
      shirt: [60, 90, 110],
    },
  },
  {
    id: 'avatar_sam',
    name: 'Sam',
    look: {
      background: [150, 210, 180],
      skin: [244, 210, 186],
      hair: [120, 80, 50],
      hairStyle: 'bald',
      shirt: [200, 70, 60],
      beard: true,
    },
  },
  {
    id: 'avatar_ines',
    name: 'Inès',
    look: {
      background: [250, 200, 160],
      skin: [222, 176, 136],
      hair: [176, 70, 40],
      hairStyle: 'long',
      shirt: [120, 70, 150],
    },
  },
  {
    id: 'avatar_ravi',
    name: 'Ravi',
    look: {
      background: [90, 104, 130],
      skin: [150, 100, 70],
      hair: [24, 22, 24],
      hairStyle: 'short',
      shirt: [236, 140, 50],
      glasses: true,
    },
  },
];

/** Avatar of Agents created without one. */
export const DEFAULT_AVATAR_ID = 'avatar_ada';

const BY_ID = new Map(AVATARS.map((avatar) => [avatar.id, avatar]));
const images = new Map<string, AvatarImage>();

/** The built-in avatar with this id, or undefined. */
export function findAvatar(id: string): Avatar | undefined {
  return BY_ID.get(id);
}

/** The avatar's PNG, drawn on first use and kept (a few tens of KiB each). */
export function avatarImage(avatar: Avatar): AvatarImage {
  let image = images.get(avatar.id);
  if (!image) {
    const png = renderPortrait(avatar.look);
    image = { png, etag: `"${createHash('sha256').update(png).digest('base64url').slice(0, 22)}"` };
    images.set(avatar.id, image);
  }
  return image;
}

/** The public path of an avatar's preview image. */
export function avatarPreviewPath(id: string): string {
  return `/v1/avatars/${encodeURIComponent(id)}/preview`;
}
