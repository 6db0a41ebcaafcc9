/**
 * A single-consumer async queue: producers `push` values, then `end()` or `fail(error)`;
 * one `for await` consumer reads them in order. Values pushed after the end are dropped.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #waiter: (() => void) | undefined;
  #done = false;
  #error: unknown;
  #iterating = false;

  push(value: T): void {
    if (this.#done) return;
    this.#items.push(value);
    this.#wake();
  }

  /** Ends the iteration after the values already pushed. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#wake();
  }

  /** Ends the iteration with `error`, after the values already pushed. */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = error;
    this.#wake();
  }

  get done(): boolean {
    return this.#done;
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterating) throw new Error('EventQueue supports one iterator');
    this.#iterating = true;
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#done) {
        if (this.#error !== undefined) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}
