import type { Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import type { RateLimitDecision } from './decision.ts';
import { GCRA_SCRIPT } from './gcra-script.ts';
import { type GcraBucket, LocalGcra } from './local-gcra.ts';
import { RateLimitStoreTimeoutError } from './store-timeout-error.ts';

export type { RateLimitDecision } from './decision.ts';

/**
 * A rate for one bucket. `perMinute` is the steady rate; `burst` is how many cells may go
 * at once from an idle bucket before the steady rate applies. `perMinute` 0 or `Infinity`
 * means unlimited.
 *
 * @example
 * ```ts
 * const synthesis: RateLimit = { perMinute: 120, burst: 20 };
 * ```
 */
export interface RateLimit {
  perMinute: number;
  /** Cells allowed at once; defaults to `ceil(perMinute / 6)`, at least 1 (ten seconds' worth). */
  burst?: number;
}

/**
 * One bucket a request counts against, with its rate.
 *
 * @example
 * ```ts
 * const buckets: BucketLimit[] = [
 *   { bucket: 'tts:k_1', limit: { perMinute: 600 } },
 *   { bucket: 'tts-workspace:w_1', limit: { perMinute: 3000 } },
 * ];
 * ```
 */
export interface BucketLimit {
  bucket: string;
  limit: RateLimit;
}

/**
 * Options for {@link RateLimiter}.
 *
 * @example
 * ```ts
 * const options: RateLimiterOptions = {
 *   prefix: 'awp',
 *   timeoutMs: 250,
 *   onError: (error) => log.warn({ err: error }, 'rate limit check failed; allowing'),
 * };
 * ```
 */
export interface RateLimiterOptions {
  /** Namespace of the keys; each bucket lives at `${prefix}:rl:${bucket}`. */
  prefix: string;
  /**
   * Called when `enforce` could not reach Redis and decided with the per-process fallback.
   * The limiter has no logger of its own, so this is the caller's only signal that limits
   * are per process now.
   */
  onError?: (error: unknown) => void;
  /** Called when `enforce` reached Redis (lets the caller end an outage it reported). */
  onRecovered?: () => void;
  /**
   * How long a check may wait on Redis, default 500 ms. ioredis queues commands while it
   * reconnects, which could hold a request for seconds; past this the check gives up.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 500;

// ioredis attaches defined commands to the client instance; a name of our own avoids
// colliding with other modules that share the service's client.
const COMMAND = 'awpRateLimitGcra';

type GcraClient = Redis & {
  /** The key count, the keys, the cost, then each bucket's interval and burst. */
  [COMMAND](...args: (string | number)[]): Promise<[number, number, number]>;
};

const UNLIMITED: RateLimitDecision = {
  allowed: true,
  retryAfterMs: 0,
  remaining: Number.POSITIVE_INFINITY,
};

/**
 * A per-bucket rate limiter shared by every api process through Redis, using GCRA: one key
 * per bucket holding a single timestamp, decided atomically by one Lua script on Redis server
 * time. Idle keys expire as soon as their bucket is full again.
 *
 * Failure policy: `consume` rejects when Redis fails or is slower than `timeoutMs`, so a
 * caller that must fail closed can. `enforce` falls back to the same limit kept in this
 * process's memory ({@link LocalGcra}) and reports the error to `options.onError`: an
 * outage of Redis should not take the API down with it, nor turn the limit off.
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter(createRedis(config.REDIS_URL), {
 *   prefix: 'awp',
 *   onError: (error) => log.warn({ err: error }, 'rate limit check failed; allowing'),
 * });
 * // Throws ApiError('rate_limited') with retryAfterSeconds once the key exceeds its rate.
 * await limiter.enforce(`key:${apiKey.id}`, { perMinute: 600 });
 * ```
 */
export class RateLimiter {
  readonly #redis: GcraClient;
  readonly #prefix: string;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #onRecovered: (() => void) | undefined;
  readonly #timeoutMs: number;
  readonly #local = new LocalGcra();

  constructor(redis: Redis, options: RateLimiterOptions) {
    if (!(COMMAND in redis)) {
      // EVALSHA, falling back to EVAL (which loads the script) on NOSCRIPT.
      // No fixed key count: each call passes its own first.
      redis.defineCommand(COMMAND, { lua: GCRA_SCRIPT });
    }
    this.#redis = redis as GcraClient;
    this.#prefix = options.prefix;
    this.#onError = options.onError;
    this.#onRecovered = options.onRecovered;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * Takes `cost` cells from `bucket` if the rate allows it. A refused request takes nothing.
   * Rejects with the Redis error, or a {@link RateLimitStoreTimeoutError}, when Redis cannot
   * decide; throws `RangeError` for a limit or cost that makes no sense (including a cost
   * above the burst, which could never pass).
   *
   * @example
   * ```ts
   * const decision = await limiter.consume('workspace:w_1', { perMinute: 60, burst: 5 }, 2);
   * // { allowed: true, retryAfterMs: 0, remaining: 3 } on an idle bucket
   * ```
   */
  async consume(bucket: string, limit: RateLimit, cost = 1): Promise<RateLimitDecision> {
    return this.consumeAll([{ bucket, limit }], cost);
  }

  /**
   * Takes `cost` cells from every bucket in `buckets` if all of their rates allow it, in
   * one atomic Redis call; a request any bucket refuses takes nothing from any of them.
   * `retryAfterMs` is then the wait until all of them would allow it, and `remaining` is
   * the fewest of any bucket. Unlimited buckets are left out; rejects like {@link consume}.
   *
   * @example
   * ```ts
   * const decision = await limiter.consumeAll([
   *   { bucket: 'tts:k_1', limit: { perMinute: 600 } },
   *   { bucket: 'tts-workspace:w_1', limit: { perMinute: 3000 } },
   * ]);
   * ```
   */
  async consumeAll(buckets: readonly BucketLimit[], cost = 1): Promise<RateLimitDecision> {
    const limited = resolveBuckets(buckets, cost);
    if (limited.length === 0) return { ...UNLIMITED };
    return this.#run(limited, cost);
  }

  /**
   * Takes `cost` cells from `bucket` or throws `ApiError('rate_limited')` with
   * `retryAfterSeconds` (rounded up, at least 1). When Redis cannot decide, this process's
   * own copy of the bucket decides and the error goes to `options.onError`.
   *
   * @example
   * ```ts
   * await limiter.enforce(`key:${apiKey.id}`, { perMinute: 600 }, Math.ceil(text.length / 1000));
   * ```
   */
  async enforce(bucket: string, limit: RateLimit, cost = 1): Promise<void> {
    await this.enforceAll([{ bucket, limit }], cost);
  }

  /**
   * {@link consumeAll} that throws `ApiError('rate_limited')` like {@link enforce}, and
   * falls back to this process's own copy of the buckets when Redis cannot decide.
   *
   * @example
   * ```ts
   * await limiter.enforceAll([
   *   { bucket: `tts:${keyId}`, limit: { perMinute: 600 } },
   *   { bucket: `tts-workspace:${workspaceId}`, limit: { perMinute: 3000 } },
   * ]);
   * ```
   */
  async enforceAll(buckets: readonly BucketLimit[], cost = 1): Promise<void> {
    // Outside the try: a bad limit is a bug to surface, not an outage to tolerate.
    const limited = resolveBuckets(buckets, cost);
    if (limited.length === 0) return;
    let decision: RateLimitDecision;
    try {
      decision = await this.#run(limited, cost);
      this.#onRecovered?.();
    } catch (error) {
      this.#onError?.(error);
      decision = this.#local.consumeAll(limited, cost);
    }
    if (decision.allowed) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new ApiError('rate_limited', `Rate limit exceeded; retry after ${retryAfterSeconds} s.`, {
      retryAfterSeconds,
    });
  }

  async #run(buckets: readonly GcraBucket[], cost: number): Promise<RateLimitDecision> {
    const args: (string | number)[] = [buckets.length];
    for (const { bucket } of buckets) args.push(`${this.#prefix}:rl:${bucket}`);
    args.push(cost);
    for (const { intervalMs, burst } of buckets) args.push(intervalMs, burst);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RateLimitStoreTimeoutError(this.#timeoutMs)),
        this.#timeoutMs,
      );
    });
    try {
      // A command that answers after the timeout may still take its cells; that errs on the
      // side of the limit and only happens while Redis is struggling.
      const [allowed, retryAfterMs, remaining] = await Promise.race([
        this.#redis[COMMAND](...args),
        timeout,
      ]);
      return { allowed: allowed === 1, retryAfterMs, remaining };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The limited buckets of `buckets` with their emission intervals and bursts. */
function resolveBuckets(buckets: readonly BucketLimit[], cost: number): GcraBucket[] {
  const limited: GcraBucket[] = [];
  for (const { bucket, limit } of buckets) {
    const cells = resolveCells(limit, cost);
    if (cells !== undefined) limited.push({ bucket, ...cells });
  }
  return limited;
}

/** The emission interval and burst of a limit, or undefined when it is unlimited. */
function resolveCells(
  limit: RateLimit,
  cost: number,
): { intervalMs: number; burst: number } | undefined {
  const { perMinute } = limit;
  if (Number.isNaN(perMinute) || perMinute < 0) {
    throw new RangeError(`perMinute must be >= 0, got ${perMinute}.`);
  }
  if (!Number.isFinite(cost) || cost < 0) {
    throw new RangeError(`cost must be a finite number >= 0, got ${cost}.`);
  }
  if (perMinute === 0 || perMinute === Number.POSITIVE_INFINITY) return undefined;
  const burst = limit.burst ?? Math.max(1, Math.ceil(perMinute / 6));
  if (!Number.isInteger(burst) || burst < 1) {
    throw new RangeError(`burst must be an integer >= 1, got ${burst}.`);
  }
  if (cost > burst) {
    throw new RangeError(`cost ${cost} exceeds burst ${burst} and could never be allowed.`);
  }
  return { intervalMs: 60_000 / perMinute, burst };
}
