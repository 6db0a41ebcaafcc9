import type { RateLimitDecision } from './limiter.ts';

/** Buckets kept before a sweep drops the idle ones; bounds memory under many keys. */
const SWEEP_AT_SIZE = 10_000;
/** Float noise below this (a nanosecond) is no wait. */
const WAIT_EPSILON_MS = 1e-6;

/**
 * The same GCRA as the Redis script ({@link GCRA_SCRIPT}), in this process's memory: the
 * fallback while Redis cannot decide. Each process then enforces the whole limit on its
 * own, so N api processes admit up to N times the rate during an outage: a looser limit,
 * never none.
 */
export class LocalGcra {
  /** Theoretical arrival time per bucket, in ms of `performance.now()`. */
  readonly #tat = new Map<string, number>();

  consume(
    bucket: string,
    intervalMs: number,
    burst: number,
    cost: number,
    now = performance.now(),
  ): RateLimitDecision {
    if (this.#tat.size >= SWEEP_AT_SIZE) this.#sweep(now);
    const tat = Math.max(this.#tat.get(bucket) ?? now, now);
    const capacity = burst * intervalMs;
    const newTat = tat + cost * intervalMs;
    // The wait until the request would fit, from the differences: `newTat - capacity - now`
    // rounds (1000 added to performance.now() and taken away again can come out a hair
    // above it), which refused the first request of an idle bucket when cost = burst.
    const waitMs = tat - now + (cost * intervalMs - capacity);
    const cells = (ms: number) => Math.max(0, Math.floor(ms / intervalMs + 1e-9));
    if (waitMs > WAIT_EPSILON_MS) {
      return {
        allowed: false,
        retryAfterMs: Math.ceil(waitMs),
        remaining: cells(capacity - (tat - now)),
      };
    }
    if (newTat > now) this.#tat.set(bucket, newTat);
    return { allowed: true, retryAfterMs: 0, remaining: cells(capacity - (newTat - now)) };
  }

  /** Buckets held (for tests). */
  get size(): number {
    return this.#tat.size;
  }

  #sweep(now: number): void {
    // A bucket whose TAT has passed is full again: it holds no information.
    for (const [bucket, tat] of this.#tat) if (tat <= now) this.#tat.delete(bucket);
  }
}
