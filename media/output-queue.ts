/**
 * The buffer between an encoder (producer) and one consumer iterating its output. It
 * counts queued bytes so the producer can wait while the consumer lags
 * ({@link OutputQueue.whenWritable}), which bounds memory under a slow client.
 *
 * When the consumer pulls and several chunks are queued, they come out joined: fewer,
 * larger messages for a lagging client, and the byte stream is unchanged.
 */
export class OutputQueue implements AsyncIterable<Buffer> {
  readonly highWaterMarkBytes: number;
  readonly #chunks: Buffer[] = [];
  #bufferedBytes = 0;
  #closed = false;
  #error: { readonly reason: unknown } | null = null;
  #consumerGone = false;
  #iterating = false;
  #wakeConsumer: (() => void) | null = null;
  readonly #writableWaiters: Array<{ resolve: () => void; reject: (reason: unknown) => void }> = [];
  readonly #onConsumerExit: () => void;

  /**
   * @param highWaterMarkBytes queued bytes at or above which `whenWritable()` waits.
   * @param onConsumerExit called once when the consumer stops iterating early (`break`,
   *   `return`, or a throw in its loop), so the producer can stop its work.
   */
  constructor(highWaterMarkBytes: number, onConsumerExit: () => void = () => {}) {
    this.highWaterMarkBytes = highWaterMarkBytes;
    this.#onConsumerExit = onConsumerExit;
  }

  /** Bytes queued and not yet taken by the consumer. */
  get bufferedBytes(): number {
    return this.#bufferedBytes;
  }

  /** True once the consumer stopped early; further output is dropped. */
  get consumerGone(): boolean {
    return this.#consumerGone;
  }

  /** Queue output. Ignored after close, failure or consumer exit. */
  push(chunk: Buffer): void {
    if (this.#closed || this.#error || this.#consumerGone || chunk.byteLength === 0) return;
    this.#chunks.push(chunk);
    this.#bufferedBytes += chunk.byteLength;
    this.#wake();
  }

  /** Mark the end of output: the consumer finishes after taking what is queued. */
  close(): void {
    if (this.#closed || this.#error) return;
    this.#closed = true;
    this.#wake();
    this.#settleWriters();
  }

  /**
   * Fail the stream: queued output is discarded and the consumer's next pull throws
   * `reason`. Waiting producers are rejected with it too. A no-op once the consumer has
   * everything.
   */
  fail(reason: unknown): void {
    // After close, failing still matters while output is queued: abort discards it.
    if (this.#error || (this.#closed && this.#chunks.length === 0)) return;
    this.#error = { reason };
    this.#chunks.length = 0;
    this.#bufferedBytes = 0;
    this.#wake();
    this.#settleWriters();
  }

  /**
   * Resolves when the queue is below its high-water mark (at once if it already is).
   * Rejects with the failure reason after `fail()`, and with an `AbortError` after the
   * consumer exited.
   */
  whenWritable(): Promise<void> {
    if (this.#error) return Promise.reject(this.#error.reason);
    if (this.#consumerGone) return Promise.reject(consumerGoneError());
    if (this.#closed || this.#bufferedBytes < this.highWaterMarkBytes) return Promise.resolve();
    return new Promise((resolve, reject) => this.#writableWaiters.push({ resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.#iterating) throw new Error('OutputQueue supports a single consumer');
    this.#iterating = true;
    return {
      next: () => this.#next(),
      return: () => {
        this.#exitConsumer();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  async #next(): Promise<IteratorResult<Buffer>> {
    for (;;) {
      if (this.#error) throw this.#error.reason;
      if (this.#consumerGone) return { done: true, value: undefined };
      if (this.#chunks.length > 0) {
        const value = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
        this.#chunks.length = 0;
        this.#bufferedBytes = 0;
        this.#settleWriters();
        return { done: false, value };
      }
      if (this.#closed) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wakeConsumer = resolve;
      });
    }
  }

  #exitConsumer(): void {
    if (this.#consumerGone) return;
    const finished = this.#closed && this.#chunks.length === 0;
    this.#consumerGone = true;
    this.#chunks.length = 0;
    this.#bufferedBytes = 0;
    this.#settleWriters();
    if (!finished && !this.#error) this.#onConsumerExit();
  }

  #wake(): void {
    const wake = this.#wakeConsumer;
    this.#wakeConsumer = null;
    wake?.();
  }

  #settleWriters(): void {
    if (this.#writableWaiters.length === 0) return;
    const failure = this.#error
      ? this.#error.reason
      : this.#consumerGone
        ? consumerGoneError()
        : null;
    if (failure === null && !this.#closed && this.#bufferedBytes >= this.highWaterMarkBytes) {
      return;
    }
    const waiters = this.#writableWaiters.splice(0);
    for (const waiter of waiters) {
      if (failure === null) waiter.resolve();
      else waiter.reject(failure);
    }
  }
}

function consumerGoneError(): Error {
  return new DOMException('the consumer stopped reading the output', 'AbortError');
}
