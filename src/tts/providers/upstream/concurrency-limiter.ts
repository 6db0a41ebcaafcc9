import { WaitQueue, type WaitQueueOptions } from '../wait-queue.ts';

/** Occupancy of a {@link ConcurrencyLimiter}. */
export interface ConcurrencyLimiterStats {
  readonly limit: number;
  /** Slots held right now. */
  readonly active: number;
  /** Callers queued for a slot. */
  readonly waiting: number;
}

/**
 * Bounds the concurrent upstream requests of one provider account. A vendor counts
 * concurrency per account (ElevenLabs answers 429 `too_many_concurrent_requests` above the
 * plan's bound), so queueing here turns a burst into a short wait instead of failures.
 *
 * - Callers beyond the bound wait in FIFO order; a freed slot goes straight to the queue
 *   head, so a new caller never overtakes a waiting one.
 * - A waiting caller whose signal aborts leaves the queue and gets `signal.reason`.
 * - A caller finding the queue full, or waiting past its deadline, gets
 *   `ProviderError('overloaded')` (public `provider_unavailable`, retryable).
 * - Share one limiter between provider instances that use the same account.
 *
 * @example
 * const release = await limiter.acquire(signal);
 * try { await callUpstream(); } finally { release(); }
 */
export class ConcurrencyLimiter {
  readonly #limit: number;
  #active = 0;
  readonly #waiters: WaitQueue;

  /** `queue` bounds the callers waiting (length, wait deadline); default unbounded. */
  constructor(limit: number, queue: WaitQueueOptions = {}) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`);
    }
    this.#limit = limit;
    this.#waiters = new WaitQueue(queue);
  }

  get stats(): ConcurrencyLimiterStats {
    return { limit: this.#limit, active: this.#active, waiting: this.#waiters.length };
  }

  /**
   * Waits for a slot and returns its release function (safe to call more than once).
   * Rejects with `signal.reason` if `signal` aborts first; an aborted signal never queues.
   */
  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#active < this.#limit && this.#waiters.length === 0) {
      this.#active += 1;
      return this.#releaser();
    }
    await this.#waiters.wait(signal);
    // The slot was handed over (active already counts it); give it back if the caller left.
    const release = this.#releaser();
    if (signal.aborted) {
      release();
      throw signal.reason;
    }
    return release;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (!this.#waiters.grantNext()) this.#active -= 1;
    };
  }
}
