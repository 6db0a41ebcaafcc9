/**
 * The answer to one `consume`. `remaining` counts unit-cost requests that would pass right
 * now; `retryAfterMs` is 0 when allowed, else the wait until this same cost would pass.
 *
 * @example
 * ```ts
 * const { allowed, retryAfterMs } = await limiter.consume('key:k_1', { perMinute: 60 });
 * if (!allowed) response.setHeader('retry-after', String(Math.ceil(retryAfterMs / 1000)));
 * ```
 */
export interface RateLimitDecision {
  allowed: boolean;
  retryAfterMs: number;
  remaining: number;
}
