import type { ClientEvent } from './protocol.ts';

/**
 * A streaming request's client events, handled one at a time in arrival order. The events
 * received and not handled yet stay visible to the handler (`waiting`), so it can look
 * ahead, for example to reserve the credit of a burst of text at once.
 *
 * @example
 * ```ts
 * const events = new ClientEventQueue(handle, fail);
 * events.push(parseClientEvent(frame));
 * await events.idle(); // every event pushed so far has been handled
 * ```
 */
export class ClientEventQueue {
  #chain: Promise<void> = Promise.resolve();
  readonly #waiting: ClientEvent[] = [];

  constructor(
    private readonly handle: (event: ClientEvent) => Promise<void>,
    /** Called with what a handler threw; the events after it are still handled. */
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Received and not handled yet, in order; the event being handled is not among them. */
  get waiting(): readonly ClientEvent[] {
    return this.#waiting;
  }

  push(event: ClientEvent): void {
    this.#waiting.push(event);
    this.#chain = this.#chain
      .then(() => {
        this.#waiting.shift();
        return this.handle(event);
      })
      .catch(this.failed);
  }

  /** Resolves once every event pushed so far has been handled. */
  idle(): Promise<void> {
    return this.#chain;
  }
}
