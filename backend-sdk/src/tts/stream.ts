import type WebSocket from 'ws';
import {
  AwpAbortError,
  AwpConnectionError,
  AwpError,
  AwpStreamClosedError,
  AwpTimeoutError,
} from '../errors.ts';
import { abortableSleep } from '../internal/signals.ts';
import { nextRetryDelayMs, type RetryPolicy } from '../retry.ts';
import type { AudioChunk, StreamResult, StreamStartRequest } from '../types/tts.ts';
import { StreamDecoder } from './events.ts';
import { connectOnce } from './handshake.ts';
import { splitText } from './text.ts';

/** Options of `client.tts.stream`: the `start` request plus text and call settings. */
export interface TtsStreamOptions extends StreamStartRequest {
  /**
   * The text. A string is sent whole (split into events of at most 5,000 characters) and
   * then `stop`. An (async) iterable sends each element as one segment, `text` then
   * `flush`, so audio of early segments arrives while later ones are still being written
   * (an LLM's sentences, say), and `stop` when it ends. `''` or an empty iterable with
   * `params.voice_tags` is a tag-only request. Omit it to drive the stream yourself with
   * `sendText`, `flush` and `end`.
   */
  text?: string | Iterable<string> | AsyncIterable<string>;
  /** A TTS stream token to connect with instead of the client's API key. */
  streamToken?: string;
  /** Closes the stream; iteration then throws `AwpAbortError`. */
  signal?: AbortSignal;
  /**
   * Milliseconds for each connection attempt, and, once `stop` is sent, the longest wait
   * between two server events. Default: the client's `timeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Connection attempts. Only the handshake is retried: once `start` is sent, a failure is
   * thrown, since a new request could repeat speech already played.
   */
  maxAttempts?: number;
}

/** Settings of the client a stream needs. */
export interface StreamContext {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
}

type Item = { chunk: AudioChunk } | { done: StreamResult } | { error: AwpError };

/** Chunks buffered before the socket is paused (the service then waits on TCP). */
const HIGH_WATER_CHUNKS = 64;

/**
 * One `/v1/tts/stream` request: iterate it with `for await` to receive audio chunks in
 * `seq` order. A gap or repeat in `seq` throws `AwpStreamSequenceError`; an `error` event
 * throws the typed error of its code; leaving the loop early closes the socket (cancels).
 *
 * @example
 * ```ts
 * const stream = client.tts.stream({
 *   voice_id: voice.id,
 *   output_format: 'pcm_24000',
 *   text: 'Hello there. How can I help?',
 * });
 * for await (const chunk of stream) speaker.write(chunk.audio);
 * const { usage, cost, auditId } = await stream.result;
 * ```
 */
export class TtsStream implements AsyncIterable<AudioChunk> {
  /** The service's request id, once the first event named it. */
  requestId: string | undefined;
  /**
   * Resolves with `usage` and `finish` after the last chunk, rejects like the iteration.
   *
   * @example
   * ```ts
   * const { requestId, auditId, cost } = await stream.result;
   * ```
   */
  readonly result: Promise<StreamResult>;

  readonly #items: Item[] = [];
  #wake: (() => void) | undefined;
  #socket: WebSocket | undefined;
  readonly #opened: Promise<WebSocket>;
  #ended = false;
  /** Why the stream ended, when it failed; later sends reject with it. */
  #failure: AwpError | undefined;
  #stopSent = false;
  readonly #decoder = new StreamDecoder();
  #idle: NodeJS.Timeout | undefined;
  #settle!: { resolve: (r: StreamResult) => void; reject: (e: AwpError) => void };
  #iterating = false;
  readonly #timeoutMs: number;
  #release: () => void = () => {};

  /** @internal Created by `client.tts.stream`. */
  constructor(context: StreamContext, options: TtsStreamOptions) {
    this.result = new Promise<StreamResult>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // The iteration reports failures; `result` must not also crash the process when unread.
    this.result.catch(() => {});
    this.#timeoutMs = options.timeoutMs ?? context.timeoutMs;
    this.#opened = this.#open(context, options);
    this.#opened.catch((error: AwpError) => this.#finish({ error }));
    if (options.signal) {
      const signal = options.signal;
      const onAbort = () =>
        this.#finish({
          error: new AwpAbortError({
            code: 'aborted',
            detail: 'the stream was aborted',
            requestId: this.requestId,
            retryable: false,
            cause: signal.reason,
          }),
        });
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        // A long-lived signal shared by many streams must not keep each one reachable.
        this.#release = () => signal.removeEventListener('abort', onAbort);
      }
    }
    if (options.text !== undefined) void this.#feed(options.text);
  }

  async #open(context: StreamContext, options: TtsStreamOptions): Promise<WebSocket> {
    const policy = {
      ...context.retry,
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    };
    const signal = options.signal ?? new AbortController().signal;
    for (let failed = 0; ; ) {
      if (this.#ended)
        throw new AwpAbortError({ code: 'aborted', detail: 'closed', retryable: false });
      try {
        const socket = await connectOnce(context, options.streamToken, this.#timeoutMs, signal);
        if (this.#ended) {
          socket.terminate();
          throw new AwpAbortError({ code: 'aborted', detail: 'closed', retryable: false });
        }
        this.#attach(socket);
        const start: Record<string, unknown> = {
          voice_id: options.voice_id,
          output_format: options.output_format,
        };
        for (const key of ['partner_session_id', 'context_id', 'params'] as const) {
          if (options[key] !== undefined) start[key] = options[key];
        }
        socket.send(JSON.stringify({ event: 'start', request: start }));
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
          throw new AwpAbortError({ code: 'aborted', detail: 'aborted', retryable: false });
        });
      }
    }
  }

  #attach(socket: WebSocket): void {
    this.#socket = socket;
    socket.on('message', (data, isBinary) => {
      this.#armIdle();
      const decoded = isBinary
        ? { error: this.#decoder.invalid('the service sent a binary frame') }
        : this.#decoder.frame(data.toString());
      this.requestId ??= this.#decoder.requestId;
      if (!decoded) return;
      if ('chunk' in decoded) this.#push(decoded);
      else this.#finish(decoded);
    });
    socket.on('close', (code, reason) => {
      this.#finish({
        error: new AwpStreamClosedError({
          code: 'stream_closed',
          detail: `the socket closed (${code}${reason.length ? ` ${reason.toString()}` : ''}) before finish`,
          requestId: this.requestId,
          retryable: true,
        }),
      });
    });
    socket.on('error', (cause) => {
      this.#finish({
        error: new AwpConnectionError({
          code: 'connection_error',
          detail: `the stream failed: ${cause.message}`,
          requestId: this.requestId,
          retryable: true,
          cause,
        }),
      });
    });
  }

  /** After `stop`, a silent service within `timeoutMs` fails the stream. */
  #armIdle(): void {
    if (!this.#stopSent || this.#ended) return;
    clearTimeout(this.#idle);
    if (this.#timeoutMs <= 0 || !Number.isFinite(this.#timeoutMs)) return;
    this.#idle = setTimeout(() => {
      this.#finish({
        error: new AwpTimeoutError({
          code: 'timeout',
          detail: `no stream event within ${this.#timeoutMs} ms`,
          requestId: this.requestId,
          retryable: true,
        }),
      });
    }, this.#timeoutMs);
  }

  #push(item: Item): void {
    this.#items.push(item);
    if (this.#items.length >= HIGH_WATER_CHUNKS) this.#socket?.pause();
    this.#wake?.();
  }

  /** Ends the stream once: the terminal item is queued and the socket closed. */
  #finish(item: { done: StreamResult } | { error: AwpError }): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#idle);
    this.#release();
    const socket = this.#socket;
    if (socket) {
      socket.removeAllListeners('close');
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      if ('done' in item) socket.close(1000);
      else socket.terminate();
    }
    if ('done' in item) this.#settle.resolve(item.done);
    else {
      this.#failure = item.error;
      this.#settle.reject(item.error);
    }
    this.#push(item);
  }

  async #feed(text: string | Iterable<string> | AsyncIterable<string>): Promise<void> {
    try {
      if (typeof text === 'string') {
        for (const piece of splitText(text)) await this.sendText(piece);
      } else {
        for await (const segment of text) {
          if (this.#ended) return;
          if (segment === '') continue;
          for (const piece of splitText(segment)) await this.sendText(piece);
          await this.flush();
        }
      }
      await this.end();
    } catch (error) {
      this.#finish({
        error:
          error instanceof AwpError
            ? error
            : new AwpError({
                code: 'input_failed',
                detail: `the text source failed: ${(error as Error)?.message ?? String(error)}`,
                requestId: this.requestId,
                retryable: false,
                cause: error,
              }),
      });
    }
  }

  async #send(event: Record<string, unknown>): Promise<void> {
    const socket = await this.#opened;
    if (this.#failure) throw this.#failure;
    if (this.#ended) {
      throw new AwpError({
        code: 'stream_finished',
        detail: `cannot send ${String(event.event)}: the request already finished`,
        requestId: this.requestId,
        retryable: false,
      });
    }
    await new Promise<void>((resolve, reject) =>
      socket.send(JSON.stringify(event), (error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * Sends a `text` event (1 to 5,000 characters) when driving the stream yourself.
   *
   * @example
   * ```ts
   * const stream = client.tts.stream({ voice_id, output_format: 'opus_48000_64' });
   * await stream.sendText('First sentence.');
   * await stream.flush();
   * await stream.end();
   * ```
   */
  async sendText(text: string): Promise<void> {
    await this.#send({ event: 'text', text });
  }

  /**
   * Sends `flush`: the text so far is synthesized while the request stays open.
   *
   * @example
   * ```ts
   * await stream.flush();
   * ```
   */
  async flush(): Promise<void> {
    await this.#send({ event: 'flush' });
  }

  /**
   * Sends `stop`: the rest is synthesized, then `usage` and `finish` end the request.
   *
   * @example
   * ```ts
   * await stream.end();
   * ```
   */
  async end(): Promise<void> {
    if (this.#stopSent) return;
    await this.#send({ event: 'stop' });
    this.#stopSent = true;
    this.#armIdle();
  }

  /**
   * Cancels: closes the socket. Cancelled speech is not replayed.
   *
   * @example
   * ```ts
   * stream.close();
   * ```
   */
  close(): void {
    this.#finish({
      error: new AwpAbortError({
        code: 'aborted',
        detail: 'the stream was closed',
        requestId: this.requestId,
        retryable: false,
      }),
    });
  }

  /**
   * The audio chunks in `seq` order; one iteration per stream.
   *
   * @example
   * ```ts
   * for await (const { seq, audio } of stream) console.log(seq, audio.byteLength);
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncIterator<AudioChunk> {
    if (this.#iterating) throw new Error('a TTS stream can be iterated once');
    this.#iterating = true;
    try {
      for (;;) {
        const item = this.#items.shift();
        if (!item) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        if (this.#items.length < HIGH_WATER_CHUNKS / 4 && !this.#ended) this.#socket?.resume();
        if ('chunk' in item) yield item.chunk;
        else if ('done' in item) return;
        else throw item.error;
      }
    } finally {
      // Leaving the loop early (break, throw) cancels the request.
      if (!this.#ended) this.close();
    }
  }
}
