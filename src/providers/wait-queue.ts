/**
 * Callers waiting for a slot, served first come, first served. A waiter whose signal
 * aborts leaves the queue and its promise rejects with the signal's reason.
 */
export class WaitQueue {
  readonly #waiters: (() => void)[] = [];

  get length(): number {
    return this.#waiters.length;
  }

  /** Resolves when {@link grantNext} reaches this caller. */
  wait(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal.reason);
      };
      this.#waiters.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands a slot to the longest waiter; false when nobody waits. */
  grantNext(): boolean {
    const grant = this.#waiters.shift();
    grant?.();
    return grant !== undefined;
  }
}
