import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt parameters: N = 2^15, r = 8, p = 1, 32 MiB and about 100 ms per attempt. OWASP
 * suggests N = 2^17 (128 MiB); we stay lower so a burst of sign-ins cannot exhaust a small
 * node's memory, and rely on the per-email and per-address attempt limits against
 * guessing. The parameters are stored in every hash, so raising them later keeps old
 * hashes valid.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/** Shortest and longest password accepted (long enough to be a passphrase, bounded work). */
export const PASSWORD_MIN_CHARS = 12;
export const PASSWORD_MAX_CHARS = 256;

function derive(password: string, salt: Buffer, n: number, r: number, p: number) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_BYTES,
      // 128 * N * r bytes of memory, plus headroom.
      { N: n, r, p, maxmem: 256 * n * r },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * A self-describing scrypt hash, `scrypt$N$r$p$salt$key` (base64url parts).
 *
 * @example
 * const stored = await hashPassword('correct horse battery staple');
 * await verifyPassword('correct horse battery staple', stored); // true
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, BLOCK_SIZE, PARALLELISM);
  return [
    'scrypt',
    COST,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** True when `password` matches `stored`; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((value) => Number.isSafeInteger(value) && value > 0)) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  let actual: Buffer;
  try {
    actual = await derive(password, salt, n, r, p);
  } catch {
    // Parameters scrypt refuses (N not a power of two, over the memory bound).
    return false;
  }
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches, verified against unknown users so timing reveals nothing. */
export const DUMMY_HASH = `scrypt$${COST}$${BLOCK_SIZE}$${PARALLELISM}$${Buffer.alloc(SALT_BYTES).toString('base64url')}$${Buffer.alloc(KEY_BYTES).toString('base64url')}`;
