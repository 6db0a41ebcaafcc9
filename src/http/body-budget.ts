/**
 * The bytes of request bodies one process accepts in flight at once. A request reserves
 * its declared length (or its route's limit when the length is not declared) after it
 * authenticated and before its first body byte is read, and releases it when its handler
 * has finished; a reservation beyond the budget is refused, so a crowd of uploads waits in
 * the clients' kernels rather than in this process's memory.
 *
 * @example
 * const budget = new BodyBudget(256 * 1024 * 1024);
 * if (!budget.tryReserve(length)) throw new ApiError('service_unavailable', '...');
 * try { ... } finally { budget.release(length); }
 */
export class BodyBudget {
  #reservedBytes = 0;

  constructor(readonly limitBytes: number) {}

  /** Bytes reserved by requests in flight. */
  get reservedBytes(): number {
    return this.#reservedBytes;
  }

  /** Reserves `bytes` when they fit in what is left of the budget. */
  tryReserve(bytes: number): boolean {
    if (this.#reservedBytes + bytes > this.limitBytes) return false;
    this.#reservedBytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#reservedBytes = Math.max(0, this.#reservedBytes - bytes);
  }
}
