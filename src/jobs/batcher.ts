export interface BatcherOptions<T> {
  /** A batch is sent as soon as it holds this many items. */
  maxItems: number;
  /** ...or this long after its first item, whichever comes first. */
  maxDelayMs: number;
  /**
   * Sends one batch. Handles its own failures: a rejection is swallowed here (the batcher
   * has nobody to report it to), so log inside.
   */
  send: (items: T[]) => Promise<void>;
}

/**
 * Collects items into batches: a batch goes to `send` when it holds `maxItems` items or
 * `maxDelayMs` after its first item, whichever comes first. Sends may overlap (a full
 * batch does not wait for the previous one). After {@link Batcher.close}, each item is sent
 * alone at once: nothing waits for a timer that no one will flush.
 *
 * @example
 * ```ts
 * const batcher = new Batcher<Entry>({ maxItems: 64, maxDelayMs: 100, send: addBatch });
 * batcher.add(entry);
 * await batcher.close(); // sends what is pending and waits for every send
 * ```
 */
export class Batcher<T> {
  #pending: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #sending = new Set<Promise<void>>();
  #closed = false;

  constructor(private readonly options: BatcherOptions<T>) {}

  /** Items waiting for their batch to be sent. */
  get pendingCount(): number {
    return this.#pending.length;
  }

  add(item: T): void {
    this.#pending.push(item);
    if (this.#closed || this.#pending.length >= this.options.maxItems) {
      this.#sendPending();
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#sendPending(), this.options.maxDelayMs);
      // A pending batch alone must not keep the process alive; shutdown calls close().
      this.#timer.unref();
    }
  }

  /** Sends the pending batch now, and resolves once every send so far has settled. */
  async flush(): Promise<void> {
    this.#sendPending();
    await Promise.all([...this.#sending]);
  }

  /** Flushes, and from now on sends each added item at once. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #sendPending(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const items = this.#pending;
    this.#pending = [];
    // Started in a microtask, so a `send` that throws at once is swallowed like a rejection.
    const sending = Promise.resolve()
      .then(() => this.options.send(items))
      .catch(() => {});
    this.#sending.add(sending);
    void sending.finally(() => this.#sending.delete(sending));
  }
}
