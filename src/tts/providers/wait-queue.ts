import { ProviderError } from './errors.ts';

/** How a wait in a {@link WaitQueue} ended. */
export type WaitOutcome = 'granted' | 'aborted' | 'timeout' | 'full';

/** Bounds of a {@link WaitQueue}; both default to unbounded. */
export interface WaitQueueOptions {
  /** Most callers waiting at once; one more is refused at once. */
  readonly maxWaiting?: number;
  /** Longest wait for a slot; past it the caller is refused. */
  readonly maxWaitMs?: number;
  /** Told of every wait that ended (not of callers served without waiting). */
  readonly onWaited?: (waitedMs: number, outcome: WaitOutcome) => void;
}

/**
 * Callers waiting for a slot, served first come, first served. A waiter whose signal
 * aborts leaves the queue and its promise rejects with the signal's reason.
 *
 * Bounded: a caller that finds `maxWaiting` callers ahead, or that waits longer than
 * `maxWaitMs`, is refused with `ProviderError('overloaded')` (public `provider_unavailable`,
 * retryable), so a saturated engine answers a client quickly instead of holding it forever.
 */
export class WaitQueue {
  readonly #waiters: (() => void)[] = [];
  readonly #options: WaitQueueOptions;

  constructor(options: WaitQueueOptions = {}) {
    this.#options = options;
  }

  get length(): number {
    return this.#waiters.length;
  }

  /** Resolves when {@link grantNext} reaches this caller. */
  wait(signal: AbortSignal): Promise<void> {
    const { maxWaiting, maxWaitMs, onWaited } = this.#options;
    if (maxWaiting !== undefined && this.#waiters.length >= maxWaiting) {
      onWaited?.(0, 'full');
      return Promise.reject(
        new ProviderError('overloaded', `${this.#waiters.length} requests already wait for a slot`),
      );
    }
    const startedAt = performance.now();
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        onWaited?.(performance.now() - startedAt, outcome);
      };
      const grant = () => {
        leave('granted');
        resolve();
      };
      const onAbort = () => {
        leave('aborted');
        reject(signal.reason);
      };
      this.#waiters.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
      if (maxWaitMs !== undefined) {
        timer = setTimeout(() => {
          leave('timeout');
          reject(new ProviderError('overloaded', `no slot freed within ${maxWaitMs} ms`));
        }, maxWaitMs);
      }
    });
  }

  /** Hands a slot to the longest waiter; false when nobody waits. */
  grantNext(): boolean {
    const grant = this.#waiters.shift();
    grant?.();
    return grant !== undefined;
  }
}
