import { z } from 'zod';
import { ApiError } from '../errors.ts';

/** String fields of a card's `data`, in the order the spec lists them. */
export const CARD_STRING_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
  'system_prompt',
  'post_history_instructions',
  'creator_notes',
  'creator',
  'character_version',
] as const;

/** String-array fields of a card's `data`. */
export const CARD_LIST_FIELDS = ['alternate_greetings', 'tags', 'group_only_greetings'] as const;

type StringField = (typeof CARD_STRING_FIELDS)[number];
type ListField = (typeof CARD_LIST_FIELDS)[number];

/** The card's `data`: every field always present once stored. */
export type CardData = { [K in StringField]: string } & { [K in ListField]: string[] } & {
  extensions: Record<string, unknown>;
};

/** A character card V3 envelope, as stored and returned. */
export interface CharacterCard {
  spec: 'chara_card_v3';
  spec_version: '3.0';
  data: CardData;
}

const MAX_FIELD_CHARS = 100_000;
const MAX_LIST_ITEMS = 100;
/** Largest card as JSON text (import and API). */
export const MAX_CARD_JSON_BYTES = 256 * 1024;

const text = () => z.string().max(MAX_FIELD_CHARS);
const list = () => z.array(text()).max(MAX_LIST_ITEMS);

const dataShape = {
  ...Object.fromEntries(CARD_STRING_FIELDS.map((f) => [f, text().default('')])),
  ...Object.fromEntries(CARD_LIST_FIELDS.map((f) => [f, list().default([])])),
  extensions: z.record(z.string(), z.unknown()).default({}),
} as unknown as Record<StringField | ListField | 'extensions', z.ZodType>;

/**
 * The card as clients send it: `spec` and `spec_version` fixed, `data` fields typed; a
 * field left out is empty. Unknown `data` fields are refused so nothing is silently lost.
 */
export const characterCardSchema = z
  .strictObject({
    spec: z.literal('chara_card_v3'),
    spec_version: z.literal('3.0'),
    data: z.strictObject(dataShape),
  })
  .meta({ title: 'CharacterCard', description: 'Character card V3 (complete configuration).' })
  .transform((card) => card as unknown as CharacterCard);

/** The card as responses carry it: every `data` field present. */
export const characterCardOutputSchema = z
  .object({
    spec: z.literal('chara_card_v3'),
    spec_version: z.literal('3.0'),
    data: z.object({
      ...Object.fromEntries(CARD_STRING_FIELDS.map((f) => [f, z.string()])),
      ...Object.fromEntries(CARD_LIST_FIELDS.map((f) => [f, z.array(z.string())])),
      extensions: z.record(z.string(), z.unknown()),
    }),
  })
  .meta({ title: 'CharacterCardOutput' });

/** A card with every field empty and `name` set. */
export function emptyCard(name = ''): CharacterCard {
  const data = {
    ...Object.fromEntries(CARD_STRING_FIELDS.map((f) => [f, ''])),
    ...Object.fromEntries(CARD_LIST_FIELDS.map((f) => [f, []])),
    extensions: {},
  } as unknown as CardData;
  data.name = name;
  return { spec: 'chara_card_v3', spec_version: '3.0', data };
}

/** Legacy character fields of older clients and where each lives in the card. */
export const LEGACY_FIELD_MAP = {
  display_name: 'name',
  description: 'creator_notes',
  persona: 'description',
  instructions: 'system_prompt',
} as const satisfies Record<string, StringField>;

export type LegacyField = keyof typeof LEGACY_FIELD_MAP;
export const LEGACY_FIELDS = Object.keys(LEGACY_FIELD_MAP) as LegacyField[];
export type LegacyFields = { [K in LegacyField]: string };

/**
 * A copy of `card` with the given legacy fields written into their card fields; every other
 * field is kept, and an empty string clears the mapped field.
 */
export function applyLegacyFields(
  card: CharacterCard,
  fields: Partial<Record<LegacyField, string | undefined>>,
): CharacterCard {
  const next = structuredClone(card);
  for (const field of LEGACY_FIELDS) {
    const value = fields[field];
    if (value !== undefined) next.data[LEGACY_FIELD_MAP[field]] = value;
  }
  return next;
}

/** The legacy fields older clients read, derived from the card. */
export function legacyFieldsOf(card: CharacterCard): LegacyFields {
  return Object.fromEntries(
    LEGACY_FIELDS.map((field) => [field, card.data[LEGACY_FIELD_MAP[field]]]),
  ) as LegacyFields;
}

/** Parses a stored card (JSON text written by this service). */
export function parseStoredCard(json: string): CharacterCard {
  return JSON.parse(json) as CharacterCard;
}

/**
 * Reads a card file as other tools write it: V3 (`chara_card_v3`), V2 (`chara_card_v2`) or
 * V1 (fields at the top level), into a V3 card. Fields the spec does not list
 * (`character_book`, `assets`, `nickname`, ...) are dropped; a listed field of the wrong
 * type is `invalid_request`.
 */
export function cardFromForeignJson(value: unknown): CharacterCard {
  if (!isObject(value)) throw invalidCard('a card must be a JSON object');
  let data: Record<string, unknown>;
  if (value.spec === 'chara_card_v3' || value.spec === 'chara_card_v2') {
    if (!isObject(value.data)) throw invalidCard('"data" must be an object');
    data = value.data;
  } else if (value.spec === undefined && typeof value.name === 'string') {
    data = value;
  } else {
    throw invalidCard('"spec" must be chara_card_v3 or chara_card_v2');
  }
  const card = emptyCard();
  for (const field of CARD_STRING_FIELDS) {
    const v = data[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v.length > MAX_FIELD_CHARS) {
      throw invalidCard(`data.${field} must be a string of at most ${MAX_FIELD_CHARS} characters`);
    }
    card.data[field] = v;
  }
  for (const field of CARD_LIST_FIELDS) {
    const v = data[field];
    if (v === undefined || v === null) continue;
    if (
      !Array.isArray(v) ||
      v.length > MAX_LIST_ITEMS ||
      !v.every((item) => typeof item === 'string' && item.length <= MAX_FIELD_CHARS)
    ) {
      throw invalidCard(`data.${field} must be an array of strings`);
    }
    card.data[field] = [...v] as string[];
  }
  const extensions = data.extensions;
  if (extensions !== undefined && extensions !== null) {
    if (!isObject(extensions)) throw invalidCard('data.extensions must be an object');
    card.data.extensions = extensions;
  }
  return card;
}

/** The V2 form of a card, for the legacy `chara` PNG chunk older tools read. */
export function toV2Card(card: CharacterCard): object {
  const { group_only_greetings: _v3Only, ...data } = card.data;
  return { spec: 'chara_card_v2', spec_version: '2.0', data };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidCard(problem: string): ApiError {
  return new ApiError('invalid_request', `Invalid character card: ${problem}.`);
}
