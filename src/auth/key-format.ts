import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Fixed prefix of every permanent workspace key. */
export const API_KEY_PREFIX = 'awp_';
/** Random base62 characters after the prefix (about 238 bits). */
export const API_KEY_RANDOM_CHARS = 40;
/** Characters of the key kept for display (`awp_` and the first 8 random characters). */
export const API_KEY_DISPLAY_CHARS = API_KEY_PREFIX.length + 8;

const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{32,128}$`);

/** `length` uniformly random base62 characters from the system CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_CHARS);
}

/** True when `value` has the shape of a permanent key (it may still be unknown). */
export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * SHA-256 of the key, hex. Keys carry over 190 bits of randomness, so a fast unsalted hash
 * is enough to make a stolen table useless, and it allows lookup by hash.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_DISPLAY_CHARS);
}
