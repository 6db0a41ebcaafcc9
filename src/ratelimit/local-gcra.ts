import type { RateLimitDecision } from './decision.ts';

/** Buckets kept before a sweep drops the idle ones; bounds memory under many keys. */
const SWEEP_AT_SIZE = 10_000;
/** Float noise below this (a nanosecond) is no wait. */
const WAIT_EPSILON_MS = 1e-6;

/** One bucket of a decision: its name, emission interval in ms and burst in cells. */
export interface GcraBucket {
  readonly bucket: string;
  readonly intervalMs: number;
  readonly burst: number;
}

/**
 * The same GCRA as the Redis script ({@link GCRA_SCRIPT}), in this process's memory: the
 * fallback while Redis cannot decide. Each process then enforces the whole limit on its
 * own, so N api processes admit up to N times the rate during an outage: a looser limit,
 * never none. As there, a request is allowed only when every bucket it counts against
 * allows it, and a refused request takes nothing from any.
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
    return this.consumeAll([{ bucket, intervalMs, burst }], cost, now);
  }

  consumeAll(
    buckets: readonly GcraBucket[],
    cost: number,
    now = performance.now(),
  ): RateLimitDecision {
    if (this.#tat.size >= SWEEP_AT_SIZE) this.#sweep(now);
    const tats = buckets.map(({ bucket }) => Math.max(this.#tat.get(bucket) ?? now, now));
    // The wait until the request would fit, from the differences: `newTat - capacity - now`
    // rounds (1000 added to performance.now() and taken away again can come out a hair
    // above it), which refused the first request of an idle bucket when cost = burst.
    const waitMs = Math.max(
      0,
      ...buckets.map(({ intervalMs, burst }, i) => tats[i]! - now + (cost - burst) * intervalMs),
    );
    const fewest = (tatOf: (i: number) => number) =>
      Math.min(
        ...buckets.map(({ intervalMs, burst }, i) =>
          Math.max(0, Math.floor((burst * intervalMs - (tatOf(i) - now)) / intervalMs + 1e-9)),
        ),
      );
    if (waitMs > WAIT_EPSILON_MS) {
      return {
        allowed: false,
        retryAfterMs: Math.ceil(waitMs),
        remaining: fewest((i) => tats[i]!),
      };
    }
    const newTats = buckets.map(({ intervalMs }, i) => tats[i]! + cost * intervalMs);
    buckets.forEach(({ bucket }, i) => {
      if (newTats[i]! > now) this.#tat.set(bucket, newTats[i]!);
    });
    return { allowed: true, retryAfterMs: 0, remaining: fewest((i) => newTats[i]!) };
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
