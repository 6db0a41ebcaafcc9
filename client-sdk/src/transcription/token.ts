import { jwtExpiryMs } from '../internal/jwt.ts';
import { TranscriptionError } from './errors.ts';
import type { TranscriptionTokenResult } from './options.ts';

/** How many tokens a client remembers to recognise a cached one. */
const USED_TOKENS_KEPT = 32;

/** A token as the callback gave it, checked. */
export interface IssuedToken {
  token: string;
  /** Epoch ms of its expiry, when the answer or the JWT says. */
  expiresAtMs: number | undefined;
  websocketUrl: string | undefined;
}

/**
 * Calls the app's `token` callback on every `start()` and refuses a token this client
 * already used: a transcription token opens one session (the spec's "mint one per
 * connection"), so a repeated token means the callback caches. Expiry is judged by the api
 * (the browser's clock may be off); {@link expired} reads it after a refused handshake.
 */
export class TokenSource {
  readonly #used: string[] = [];

  constructor(
    private readonly callback: () => TranscriptionTokenResult | Promise<TranscriptionTokenResult>,
  ) {}

  async next(): Promise<IssuedToken> {
    let result: TranscriptionTokenResult;
    try {
      result = await this.callback();
    } catch (error) {
      if (error instanceof TranscriptionError) throw error;
      throw new TranscriptionError('token_callback_failed', `token threw: ${String(error)}`, {
        cause: error,
        retryable: true,
      });
    }
    const token = typeof result === 'string' ? result : result?.token;
    if (typeof token !== 'string' || token.length === 0) {
      throw new TranscriptionError(
        'token_callback_failed',
        'token must return a token string or the api token object {token, expires_at, websocket_url}.',
      );
    }
    if (this.#used.includes(token)) {
      throw tokenExpired('was already used by this client');
    }
    this.#used.push(token);
    if (this.#used.length > USED_TOKENS_KEPT) this.#used.shift();
    const object = typeof result === 'object' ? result : undefined;
    const stated = object?.expires_at ? Date.parse(object.expires_at) : Number.NaN;
    return {
      token,
      expiresAtMs: Number.isFinite(stated) ? stated : jwtExpiryMs(token),
      websocketUrl: typeof object?.websocket_url === 'string' ? object.websocket_url : undefined,
    };
  }
}

/** Whether `issued` has expired by this browser's clock. */
export function expired(issued: IssuedToken): boolean {
  return issued.expiresAtMs !== undefined && issued.expiresAtMs <= Date.now();
}

export function tokenExpired(why: string): TranscriptionError {
  return new TranscriptionError(
    'token_expired',
    `The transcription token ${why}: the token callback must mint a fresh token on every call, never return a cached one.`,
  );
}
