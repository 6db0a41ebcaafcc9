import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';

export interface SignInThrottleOptions {
  /** Attempts per minute of one client address at one email. */
  attemptsPerMinute: number;
  /**
   * Failed attempts at one email, from every address together, within `failureWindowMs`,
   * after which only addresses that signed in to it before may still try.
   */
  emailFailures: number;
  failureWindowMs: number;
  /** How long an address that signed in successfully stays known for its email. */
  knownAddressTtlMs: number;
}

/**
 * The per-address limit is this many times the per-(email, address) one: an office behind
 * one NAT address signs many people in.
 */
const ADDRESS_LIMIT_FACTOR = 10;

/** Redis keys hold a hash of the email, not the email. */
function emailDigest(email: string): string {
  return createHash('sha256').update(email, 'utf8').digest('base64url');
}

/**
 * Limits operator sign-in attempts so that nobody can lock a member out by failing on their
 * email:
 * - attempts are counted per (email, client address), so failures from one address do
 *   not stop the same email from another;
 * - failures at one email from every address together are counted in a slower window;
 *   past `emailFailures` only addresses that signed in to that email before may try
 *   (a distributed guess is stopped, the member at a known address is not);
 * - every attempt from one address, any email, has a wider budget of its own.
 * Everything lives in Redis (shared by every api process) and fails closed: without Redis
 * no attempt is counted, so none is allowed.
 */
export class SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly limiter: RateLimiter,
    private readonly prefix: string,
    private readonly options: SignInThrottleOptions,
  ) {}

  /** Before the password is checked: 429 `rate_limited` when this attempt may not run. */
  async admit(email: string, address: string): Promise<void> {
    const { attemptsPerMinute } = this.options;
    const digest = emailDigest(email);
    await this.#limit(`operator-signin:addr:${address}`, attemptsPerMinute * ADDRESS_LIMIT_FACTOR);
    await this.#limit(`operator-signin:email-addr:${digest}:${address}`, attemptsPerMinute);
    const [failures, ttlMs, known] = await this.#redisCall(async () => {
      const results = await this.redis
        .multi()
        .get(this.#failuresKey(digest))
        .pttl(this.#failuresKey(digest))
        .sismember(this.#knownKey(digest), address)
        .exec();
      return (results ?? []).map(([error, value]) => {
        if (error) throw error;
        return value;
      }) as [string | null, number, number];
    });
    if (Number(failures ?? 0) >= this.options.emailFailures && known !== 1) {
      throw new ApiError(
        'rate_limited',
        'Too many failed sign-ins to this email; wait, or sign in from an address used before.',
        { retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) },
      );
    }
  }

  /** The password was wrong (or the email unknown): one more failure at this email. */
  async failed(email: string): Promise<void> {
    const key = this.#failuresKey(emailDigest(email));
    await this.#redisCall(() =>
      this.redis.multi().incr(key).pexpire(key, this.options.failureWindowMs, 'NX').exec(),
    );
  }

  /** The password was right: this address is known for this email from now on. */
  async succeeded(email: string, address: string): Promise<void> {
    const key = this.#knownKey(emailDigest(email));
    await this.#redisCall(() =>
      this.redis.multi().sadd(key, address).pexpire(key, this.options.knownAddressTtlMs).exec(),
    );
  }

  #failuresKey(digest: string): string {
    return `${this.prefix}:operator-signin:failures:${digest}`;
  }

  #knownKey(digest: string): string {
    return `${this.prefix}:operator-signin:known:${digest}`;
  }

  async #redisCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new ApiError('service_unavailable', 'Sign-in is unavailable; try again shortly.', {
        cause: error,
      });
    }
  }

  async #limit(bucket: string, perMinute: number): Promise<void> {
    const decision = await this.#redisCall(() =>
      this.limiter.consume(bucket, { perMinute, burst: perMinute }),
    );
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new ApiError('rate_limited', 'Too many sign-in attempts; wait and try again.', {
        retryAfterSeconds: seconds,
      });
    }
  }
}
