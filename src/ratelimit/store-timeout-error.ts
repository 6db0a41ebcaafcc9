/**
 * Redis did not answer a rate-limit check within the limiter's `timeoutMs`. The limiter
 * gives up waiting rather than hold a request while ioredis reconnects; `enforce` then fails
 * open and hands this error to `onError`.
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter(redis, {
 *   prefix: 'awp',
 *   onError: (error) => {
 *     if (error instanceof RateLimitStoreTimeoutError) metrics.rateLimitTimeouts.inc();
 *     else log.warn({ err: error }, 'rate limit check failed; allowing the request');
 *   },
 * });
 * ```
 */
export class RateLimitStoreTimeoutError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`Redis did not answer the rate-limit check within ${timeoutMs} ms.`);
    this.name = 'RateLimitStoreTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
