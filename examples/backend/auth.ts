/**
 * "Authenticate your own user" (spec, Authentication 7), as a demo: the backend signs its
 * users in with its own accounts and a signed cookie, and only then starts voice sessions
 * for them with its workspace key. The accounts are fixed demo users; a real backend uses
 * its existing login.
 */

import { createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A signed-in user of the example shop. */
export interface User {
  id: string;
  name: string;
}

/** The cookie carrying the signed user id. */
export const SESSION_COOKIE = 'example_session';
/** How long a sign-in lasts. */
export const SESSION_TTL_S = 8 * 60 * 60;

interface Account extends User {
  salt: Buffer;
  passwordHash: Buffer;
}

/** The demo accounts and their passwords (printed by the README; never do this for real). */
export const DEMO_ACCOUNTS: readonly { username: string; name: string; password: string }[] = [
  { username: 'ada', name: 'Ada', password: 'demo-ada' },
  { username: 'grace', name: 'Grace', password: 'demo-grace' },
];

function hash(password: string, salt: Buffer): Buffer {
  return scryptSync(password, salt, 32);
}

/**
 * Checks passwords against salted scrypt hashes (made at start, so no password is kept in
 * memory as text) and signs and verifies session cookies with HMAC-SHA256.
 *
 * @example
 * ```ts
 * const auth = new DemoAuth(secret);
 * const user = auth.signIn('ada', 'demo-ada');
 * response.setHeader('set-cookie', auth.cookieFor(user!));
 * ```
 */
export class DemoAuth {
  readonly #secret: Buffer;
  readonly #accounts = new Map<string, Account>();

  constructor(secret: Buffer) {
    this.#secret = secret;
    for (const account of DEMO_ACCOUNTS) {
      const salt = randomBytes(16);
      this.#accounts.set(account.username, {
        id: account.username,
        name: account.name,
        salt,
        passwordHash: hash(account.password, salt),
      });
    }
  }

  /** The user for a correct username and password, else undefined. */
  signIn(username: string, password: string): User | undefined {
    const account = this.#accounts.get(username);
    // Hash even for an unknown name, so timing does not tell which names exist.
    const candidate = hash(password, account?.salt ?? randomBytes(16));
    if (!account || !timingSafeEqual(candidate, account.passwordHash)) return undefined;
    return { id: account.id, name: account.name };
  }

  /** A `Set-Cookie` value signing the user in for {@link SESSION_TTL_S}. */
  cookieFor(user: User, nowMs = Date.now()): string {
    const expires = Math.floor(nowMs / 1000) + SESSION_TTL_S;
    const payload = `${user.id}.${expires}`;
    const value = `${payload}.${this.#sign(payload)}`;
    // HttpOnly: page scripts never see it. SameSite=Strict: no other site's page can make a
    // browser send it, so a cross-site form cannot start sessions for the user.
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_S}`;
  }

  /** A `Set-Cookie` value that signs out. */
  clearCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /** The signed-in user of a request: a valid, unexpired signature of a known account. */
  userOf(request: IncomingMessage, nowMs = Date.now()): User | undefined {
    const value = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (!value) return undefined;
    const parts = value.split('.');
    if (parts.length !== 3) return undefined;
    const [id, expires, signature] = parts as [string, string, string];
    const expected = Buffer.from(this.#sign(`${id}.${expires}`));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= nowMs) return undefined;
    const account = this.#accounts.get(id);
    return account ? { id: account.id, name: account.name } : undefined;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
