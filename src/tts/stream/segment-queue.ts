/**
 * Text segments in the order the client flushed them, consumed by one synthesis loop.
 * `end()` lets the loop finish after the queued segments; `abort()` stops it at once.
 */
export class SegmentQueue implements AsyncIterable<string> {
  #items: string[] = [];
  #ended = false;
  #aborted = false;
  #wake: (() => void) | null = null;

  push(segment: string): void {
    if (this.#ended || this.#aborted) return;
    this.#items.push(segment);
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  abort(): void {
    this.#aborted = true;
    this.#items = [];
    this.#notify();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    while (true) {
      if (this.#aborted) return;
      const next = this.#items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}
