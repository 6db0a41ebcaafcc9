import { ApiError } from '../errors.ts';
import {
  type CharacterCard,
  cardFromForeignJson,
  MAX_CARD_JSON_BYTES,
  toV2Card,
} from './character-card.ts';
import { PngError, readTextChunks, withTextChunks } from './png.ts';

/**
 * Character card files as other tools exchange them: card JSON, and PNG images carrying the
 * card in a `tEXt` chunk as base64 JSON (`ccv3` for V3, `chara` for the older V2/V1 form).
 */

/** A card from JSON file contents (V3, V2 or V1). */
export function cardFromJsonFile(bytes: Buffer): CharacterCard {
  if (bytes.byteLength > MAX_CARD_JSON_BYTES) {
    throw new ApiError('invalid_request', 'The card is larger than 256 KiB.');
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ApiError('invalid_request', 'The card is not valid JSON.');
  }
  return cardFromForeignJson(value);
}

/** A card from a PNG card image: the `ccv3` chunk when present, else `chara`. */
export function cardFromPng(png: Buffer): CharacterCard {
  let texts: Map<string, string>;
  try {
    texts = readTextChunks(png);
  } catch (error) {
    if (error instanceof PngError) {
      throw new ApiError('invalid_request', `Invalid PNG: ${error.message}.`);
    }
    throw error;
  }
  const encoded = texts.get('ccv3') ?? texts.get('chara');
  if (encoded === undefined) {
    throw new ApiError('invalid_request', 'The PNG carries no character card (ccv3 or chara).');
  }
  if (!/^[A-Za-z0-9+/=\s]*$/.test(encoded)) {
    throw new ApiError('invalid_request', 'The card chunk is not base64.');
  }
  return cardFromJsonFile(Buffer.from(encoded, 'base64'));
}

/** `picture` with the card embedded twice: `ccv3` (V3) and `chara` (V2) for older readers. */
export function cardToPng(card: CharacterCard, picture: Buffer): Buffer {
  const base64 = (value: object) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
  return withTextChunks(picture, { chara: base64(toV2Card(card)), ccv3: base64(card) });
}
