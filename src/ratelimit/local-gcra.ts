import type { RateLimitDecision } from './limiter.ts';

/** Buckets kept before a sweep drops the idle ones; bounds memory under many keys. */
const SWEEP_AT_SIZE = 10_000;

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
    const allowAt = newTat - capacity;
    const cells = (ms: number) => Math.max(0, Math.floor(ms / intervalMs + 1e-9));
    if (now < allowAt) {
      return {
        allowed: false,
        retryAfterMs: Math.ceil(allowAt - now),
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
