import type WebSocket from 'ws';
import {
  AwpAbortError,
  AwpConnectionError,
  AwpError,
  AwpInvalidResponseError,
  AwpStreamClosedError,
  AwpTimeoutError,
} from '../errors.ts';
import { nextRetryDelayMs } from '../retry.ts';
import { connectOnce } from '../tts/handshake.ts';
import { abortableSleep } from './signals.ts';
import type { StreamContext } from './stream-context.ts';

export type { StreamContext } from './stream-context.ts';

/** How one socket of the service is opened and paced. */
export interface EventSocketOptions {
  /** The route, such as `/v1/tts/stream`. */
  path: string;
  /** A short-lived token to connect with instead of the client's API key. */
  token?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Each connection attempt, and after `stop` the longest wait between two events. */
  timeoutMs: number;
  maxAttempts?: number | undefined;
  /** Items buffered before the socket is paused (the service then waits on TCP). */
  highWater: number;
  /** What the socket carries, in messages: `stream`, `session`. */
  noun: string;
}

/** What one frame of the service meant: an item, the end, a failure, or nothing to yield. */
export type Decoded<T, R> = { item: T } | { done: R } | { error: AwpError } | undefined;

type Queued<T, R> = { item: T } | { done: R } | { error: AwpError };

/**
 * One WebSocket request of the service (TTS stream, transcription session): the handshake
 * retried by the client's policy, the `start` event, server events decoded by the subclass
 * and iterated with `for await` (the socket paused while the reader lags), after `stop`
 * an idle deadline, and exactly one end: `result` resolves, or every waiter gets the same
 * typed error. Leaving the loop early closes the socket.
 */
export abstract class EventSocket<T, R> implements AsyncIterable<T> {
  /** Resolves with the request's result after the last item; rejects like the iteration. */
  readonly result: Promise<R>;

  readonly #items: Queued<T, R>[] = [];
  #wake: (() => void) | undefined;
  #socket: WebSocket | undefined;
  readonly #opened: Promise<WebSocket>;
  #ended = false;
  /** Why it ended, when it failed; later sends reject with it. */
  #failure: AwpError | undefined;
  #stopSent = false;
  #idle: NodeJS.Timeout | undefined;
  #settle!: { resolve: (r: R) => void; reject: (e: AwpError) => void };
  #iterating = false;
  #release: () => void = () => {};

  protected constructor(
    context: StreamContext,
    private readonly options: EventSocketOptions,
  ) {
    this.result = new Promise<R>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // The iteration reports failures; `result` must not also crash the process when unread.
    this.result.catch(() => {});
    this.#opened = this.#open(context);
    this.#opened.catch((error: AwpError) => this.finish({ error }));
    const signal = options.signal;
    if (signal) {
      const onAbort = () =>
        this.finish({ error: this.abortError(`the ${options.noun} was aborted`, signal.reason) });
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        // A long-lived signal shared by many sockets must not keep each one reachable.
        this.#release = () => signal.removeEventListener('abort', onAbort);
      }
    }
  }

  /** The service's id of this request, once known (errors carry it). */
  protected abstract requestIdForErrors(): string | undefined;
  /** The `start` event, sent once connected. */
  protected abstract startEvent(): Record<string, unknown>;
  /** One text frame of the service. */
  protected abstract decode(text: string): Decoded<T, R>;
  /** The request ended (`finish`): subclasses settle what else waits on it. */
  protected ended(_outcome: { done: R } | { error: AwpError }): void {}

  /** True once the request ended, whichever way. */
  protected get isEnded(): boolean {
    return this.#ended;
  }

  async #open(context: StreamContext): Promise<WebSocket> {
    const { options } = this;
    const policy = {
      ...context.retry,
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    };
    const signal = options.signal ?? new AbortController().signal;
    for (let failed = 0; ; ) {
      if (this.#ended) throw this.abortError('closed');
      try {
        const socket = await connectOnce(
          context,
          options.token,
          options.timeoutMs,
          signal,
          options.path,
        );
        if (this.#ended) {
          socket.terminate();
          throw this.abortError('closed');
        }
        this.#attach(socket);
        socket.send(JSON.stringify(this.startEvent()));
        return socket;
      } catch (error) {
        failed += 1;
        const typed = error as AwpError;
        const delayMs =
          typed.retryable && !(typed instanceof AwpAbortError)
            ? nextRetryDelayMs(failed, typed.retryAfterMs, policy)
            : undefined;
        if (delayMs === undefined) throw typed;
        await abortableSleep(delayMs, signal).catch(() => {
          throw this.abortError('aborted');
        });
      }
    }
  }

  #attach(socket: WebSocket): void {
    this.#socket = socket;
    const noun = this.options.noun;
    socket.on('message', (data, isBinary) => {
      this.#armIdle();
      const decoded: Decoded<T, R> = isBinary
        ? {
            error: new AwpInvalidResponseError({
              code: 'invalid_response',
              detail: 'the service sent a binary frame',
              requestId: this.requestIdForErrors(),
              retryable: false,
            }),
          }
        : this.decode(data.toString());
      if (!decoded) return;
      if ('item' in decoded) this.#push(decoded);
      else this.finish(decoded);
    });
    socket.on('close', (code, reason) => {
      this.finish({
        error: new AwpStreamClosedError({
          code: 'stream_closed',
          detail: `the socket closed (${code}${reason.length ? ` ${reason.toString()}` : ''}) before finish`,
          requestId: this.requestIdForErrors(),
          retryable: true,
        }),
      });
    });
    socket.on('error', (cause) => {
      this.finish({
        error: new AwpConnectionError({
          code: 'connection_error',
          detail: `the ${noun} failed: ${cause.message}`,
          requestId: this.requestIdForErrors(),
          retryable: true,
          cause,
        }),
      });
    });
  }

  /** After `stop`, a silent service within `timeoutMs` fails the request. */
  #armIdle(): void {
    if (!this.#stopSent || this.#ended) return;
    clearTimeout(this.#idle);
    const { timeoutMs } = this.options;
    if (timeoutMs <= 0 || !Number.isFinite(timeoutMs)) return;
    this.#idle = setTimeout(() => {
      this.finish({
        error: new AwpTimeoutError({
          code: 'timeout',
          detail: `no event within ${timeoutMs} ms`,
          requestId: this.requestIdForErrors(),
          retryable: true,
        }),
      });
    }, timeoutMs);
  }

  #push(entry: Queued<T, R>): void {
    this.#items.push(entry);
    if (this.#items.length >= this.options.highWater) this.#socket?.pause();
    this.#wake?.();
  }

  /** Ends the request once: the terminal item is queued and the socket closed. */
  protected finish(outcome: { done: R } | { error: AwpError }): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idle);
    this.#release();
    const socket = this.#socket;
    if (socket) {
      socket.removeAllListeners('close');
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      if ('done' in outcome) socket.close(1000);
      else socket.terminate();
    }
    if ('done' in outcome) this.#settle.resolve(outcome.done);
    else {
      this.#failure = outcome.error;
      this.#settle.reject(outcome.error);
    }
    this.ended(outcome);
    this.#push(outcome);
  }

  /** A source of the request's input failed: it ends with that error, typed. */
  protected inputFailed(error: unknown, source: string): void {
    this.finish({
      error:
        error instanceof AwpError
          ? error
          : new AwpError({
              code: 'input_failed',
              detail: `the ${source} failed: ${(error as Error)?.message ?? String(error)}`,
              requestId: this.requestIdForErrors(),
              retryable: false,
              cause: error,
            }),
    });
  }

  /** Sends one frame once connected; rejects with the failure after the request ended. */
  protected async send(data: string | Uint8Array, what: string): Promise<void> {
    const socket = await this.#opened;
    if (this.#failure) throw this.#failure;
    if (this.#ended) {
      throw new AwpError({
        code: 'stream_finished',
        detail: `cannot send ${what}: the ${this.options.noun === 'stream' ? 'request' : this.options.noun} already finished`,
        requestId: this.requestIdForErrors(),
        retryable: false,
      });
    }
    await new Promise<void>((resolve, reject) =>
      socket.send(data, (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Sends `stop` (once): the rest is processed, then the request's end arrives. */
  protected async sendStop(): Promise<void> {
    if (this.#stopSent) return;
    await this.send(JSON.stringify({ event: 'stop' }), 'stop');
    this.#stopSent = true;
    this.#armIdle();
  }

  protected abortError(detail: string, cause?: unknown): AwpAbortError {
    return new AwpAbortError({
      code: 'aborted',
      detail,
      requestId: this.requestIdForErrors(),
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** Cancels: closes the socket. */
  close(): void {
    this.finish({ error: this.abortError(`the ${this.options.noun} was closed`) });
  }

  /** The items in order; one iteration per request. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterating) throw new Error(`a ${this.options.noun} can be iterated once`);
    this.#iterating = true;
    try {
      for (;;) {
        const entry = this.#items.shift();
        if (!entry) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        if (this.#items.length < this.options.highWater / 4 && !this.#ended) {
          this.#socket?.resume();
        }
        if ('item' in entry) yield entry.item;
        else if ('done' in entry) return;
        else throw entry.error;
      }
    } finally {
      // Leaving the loop early (break, throw) cancels the request.
      if (!this.#ended) this.close();
    }
  }
}
