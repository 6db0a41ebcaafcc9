/**
 * The connection a streaming request talks through, as the request needs it: JSON events
 * out with backpressure, and a close. The uWS adapter implements it; nothing here knows
 * about uWS.
 */
export interface StreamConnection {
  /** Sends one text frame. */
  send(text: string): void;
  /** Bytes accepted by `send` and not yet written to the socket. */
  bufferedAmount(): number;
  /** Closes the connection after the frames already sent (a WebSocket close frame). */
  close(code: number, reason: string): void;
}

/** Outgoing bytes above which the request stops producing until the socket drains. */
export const SEND_HIGH_WATER_BYTES = 256 * 1024;

/** How often a waiting producer re-reads the socket's buffered amount. */
const RECHECK_MS = 20;

/**
 * Server events with flow control: `writable()` waits while the socket holds more than
 * {@link SEND_HIGH_WATER_BYTES}, so a slow reader pauses synthesis instead of growing a
 * buffer. Nothing is dropped.
 *
 * A drain event alone is not a reliable wake-up: uWS emits it only when its writable
 * callback drained something, and a backlog flushed by another write (an event sent while
 * the producer waits, or uWS's own ping) empties without one, which left a stream waiting
 * forever with its engine blocked. So while anyone waits, the buffered amount is also
 * re-read on a short timer.
 */
export class EventChannel {
  #closed = false;
  #waiters: (() => void)[] = [];
  #recheck: NodeJS.Timeout | undefined;

  constructor(private readonly connection: StreamConnection) {}

  get closed(): boolean {
    return this.#closed;
  }

  send(event: object): void {
    this.sendText(JSON.stringify(event));
  }

  /** One event already serialized as JSON. */
  sendText(json: string): void {
    if (this.#closed) return;
    this.connection.send(json);
    // A send may flush the backlog a producer is waiting on, with no drain event after.
    if (this.#waiters.length > 0) this.drained();
  }

  /** Resolves once more events may be sent (at once unless the socket is backed up). */
  writable(): Promise<void> {
    if (this.#closed || this.connection.bufferedAmount() < SEND_HIGH_WATER_BYTES) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#recheck ??= setInterval(() => this.drained(), RECHECK_MS);
    });
  }

  /** The socket wrote some of its buffer. */
  drained(): void {
    if (this.connection.bufferedAmount() < SEND_HIGH_WATER_BYTES) this.#wake();
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.connection.close(code, reason);
    this.#wake();
  }

  /** The peer closed, or the connection broke. */
  lost(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    clearInterval(this.#recheck);
    this.#recheck = undefined;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
