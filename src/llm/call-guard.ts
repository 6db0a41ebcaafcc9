import { LlmError } from './errors.ts';

/** How long a streamed language-model call may stay silent before it fails as `unavailable`. */
export interface LlmTimeouts {
  /** From sending the request until the first text delta or tool-call fragment. */
  readonly firstTokenTimeoutMs: number;
  /** After the first token: longest silence between two streamed events. */
  readonly idleTimeoutMs: number;
}

export const DEFAULT_LLM_TIMEOUTS: LlmTimeouts = {
  firstTokenTimeoutMs: 30_000,
  idleTimeoutMs: 15_000,
};

/**
 * One upstream call under the caller's signal and the timeouts. Hand `signal` to the
 * vendor SDK: the guard aborts it (closing the HTTP request) when the caller aborts or a
 * timer fires, and `stopped` then says why. The SDKs end a stream quietly when it is
 * aborted, so adapters check `stopped` after their loop as well as in `catch`.
 *
 * The first-token timer is not reset by events that carry no content (Anthropic's
 * `message_start` and `ping`, an OpenAI role-only chunk): a vendor that keeps the
 * connection alive but never answers still fails in time.
 */
export class CallGuard {
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal;
  readonly #timeouts: LlmTimeouts;
  readonly #onAbort = () => this.#stop(new LlmError('cancelled', 'the caller aborted the call'));
  #timer: NodeJS.Timeout | undefined;
  #stopped: LlmError | undefined;
  #sawContent = false;

  constructor(callerSignal: AbortSignal, timeouts: LlmTimeouts) {
    this.#callerSignal = callerSignal;
    this.#timeouts = timeouts;
    if (callerSignal.aborted) {
      this.#onAbort();
      return;
    }
    callerSignal.addEventListener('abort', this.#onAbort, { once: true });
    this.#arm(timeouts.firstTokenTimeoutMs, 'no first token');
  }

  /** Aborted when the call must stop; pass it to the upstream request. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the call was stopped from our side (cancelled, timed out); undefined while running. */
  get stopped(): LlmError | undefined {
    return this.#stopped;
  }

  /** Throws `stopped` when the call was stopped. */
  throwIfStopped(): void {
    if (this.#stopped) throw this.#stopped;
  }

  /** Records an upstream event; `content` is true for text or tool-call data. */
  touch(content: boolean): void {
    if (this.#stopped) return;
    if (content) this.#sawContent = true;
    if (this.#sawContent) this.#arm(this.#timeouts.idleTimeoutMs, 'stream stalled');
  }

  /** Ends the guard; aborts the upstream request if it is still open (a consumer that broke off). */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#callerSignal.removeEventListener('abort', this.#onAbort);
    if (!this.#controller.signal.aborted) this.#controller.abort();
  }

  #arm(ms: number, what: string): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => this.#stop(new LlmError('unavailable', `${what} within ${ms} ms`)),
      ms,
    );
  }

  #stop(reason: LlmError): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    clearTimeout(this.#timer);
    this.#controller.abort(reason);
  }
}
