import type WebSocket from 'ws';
import {
  AwpAbortError,
  AwpConnectionError,
  AwpError,
  AwpStreamClosedError,
  AwpTimeoutError,
} from '../errors.ts';
import { abortableSleep } from '../internal/signals.ts';
import { nextRetryDelayMs } from '../retry.ts';
import { connectOnce } from '../tts/handshake.ts';
import type { StreamContext } from '../tts/stream.ts';
import type {
  Transcript,
  TranscriptionResult,
  TranscriptionStarted,
  TranscriptionStartRequest,
} from '../types/transcription.ts';
import { TranscriptionDecoder } from './events.ts';

/** The realtime transcription WebSocket. */
export const TRANSCRIPTION_PATH = '/v1/realtime-transcription';

/** Largest binary frame sent; the service takes up to 64 KiB. */
const FRAME_BYTES = 32 * 1024;

/** Transcripts buffered before the socket is paused. */
const HIGH_WATER = 64;

/** Options of `client.transcription.stream`: the `start` event plus audio and call settings. */
export interface TranscriptionStreamOptions extends TranscriptionStartRequest {
  /**
   * The audio, raw PCM in `audio_format`: bytes, or an (async) iterable of chunks such as a
   * microphone or file stream. Each chunk goes out as binary frames, then `stop`. Omit it
   * to drive the session yourself with `sendAudio`, `flush` and `end`.
   */
  audio?: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
  /** A realtime transcription token to connect with instead of the client's API key. */
  transcriptionToken?: string;
  /** Closes the session; iteration then throws `AwpAbortError`. */
  signal?: AbortSignal;
  /**
   * Milliseconds for each connection attempt, and, once `stop` is sent, the longest wait
   * between two server events. Default: the client's `timeoutMs`.
   */
  timeoutMs?: number;
  /** Connection attempts. Only the handshake is retried. */
  maxAttempts?: number;
}

type Item = { transcript: Transcript } | { done: TranscriptionResult } | { error: AwpError };

/**
 * One `/v1/realtime-transcription` session: send audio, iterate with `for await` to
 * receive `transcript` events (interims, then the final of each segment). An `error` event
 * throws the typed error of its code; leaving the loop early closes the socket (the
 * service still transcribes and stores what it received).
 *
 * @example
 * ```ts
 * const stream = client.transcription.stream({ audio_format: 'pcm_16000', language: 'en', audio: microphone });
 * for await (const t of stream) if (t.final) console.log(t.segmentId, t.text);
 * const { sessionId, audioMs, cost } = await stream.result;
 * ```
 */
export class TranscriptionStream implements AsyncIterable<Transcript> {
  /** The service's session id, once `started` named it. */
  sessionId: string | undefined;
  /** Resolves with the `started` event (rejects like the iteration when the session fails first). */
  readonly started: Promise<TranscriptionStarted>;
  /** Resolves with `usage` and `finish` after the last transcript; rejects like the iteration. */
  readonly result: Promise<TranscriptionResult>;

  readonly #items: Item[] = [];
  #wake: (() => void) | undefined;
  #socket: WebSocket | undefined;
  readonly #opened: Promise<WebSocket>;
  #ended = false;
  #failure: AwpError | undefined;
  #stopSent = false;
  readonly #decoder = new TranscriptionDecoder();
  readonly #flushes: { resolve: () => void; reject: (error: AwpError) => void }[] = [];
  #idle: NodeJS.Timeout | undefined;
  #settle!: { resolve: (r: TranscriptionResult) => void; reject: (e: AwpError) => void };
  #settleStarted!: { resolve: (s: TranscriptionStarted) => void; reject: (e: AwpError) => void };
  #iterating = false;
  readonly #timeoutMs: number;
  #release: () => void = () => {};

  /** @internal Created by `client.transcription.stream`. */
  constructor(context: StreamContext, options: TranscriptionStreamOptions) {
    this.result = new Promise<TranscriptionResult>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.started = new Promise<TranscriptionStarted>((resolve, reject) => {
      this.#settleStarted = { resolve, reject };
    });
    // The iteration reports failures; unread promises must not crash the process.
    this.result.catch(() => {});
    this.started.catch(() => {});
    this.#timeoutMs = options.timeoutMs ?? context.timeoutMs;
    this.#opened = this.#open(context, options);
    this.#opened.catch((error: AwpError) => this.#finish({ error }));
    const signal = options.signal;
    if (signal) {
      const onAbort = () =>
        this.#finish({ error: this.#abortError('the session was aborted', signal.reason) });
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#release = () => signal.removeEventListener('abort', onAbort);
      }
    }
    if (options.audio !== undefined) void this.#feed(options.audio);
  }

  async #open(context: StreamContext, options: TranscriptionStreamOptions): Promise<WebSocket> {
    const policy = {
      ...context.retry,
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    };
    const signal = options.signal ?? new AbortController().signal;
    for (let failed = 0; ; ) {
      if (this.#ended) throw this.#abortError('closed');
      try {
        const socket = await connectOnce(
          context,
          options.transcriptionToken,
          this.#timeoutMs,
          signal,
          TRANSCRIPTION_PATH,
        );
        if (this.#ended) {
          socket.terminate();
          throw this.#abortError('closed');
        }
        this.#attach(socket);
        const start: Record<string, unknown> = {
          event: 'start',
          audio_format: options.audio_format,
        };
        for (const key of [
          'language',
          'interim_results',
          'endpointing',
          'partner_session_id',
        ] as const) {
          if (options[key] !== undefined) start[key] = options[key];
        }
        socket.send(JSON.stringify(start));
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
          throw this.#abortError('aborted');
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
      if (!decoded) return;
      if ('started' in decoded) {
        this.sessionId = decoded.started.sessionId;
        this.#settleStarted.resolve(decoded.started);
      } else if ('flushed' in decoded) {
        this.#flushes.shift()?.resolve();
      } else if ('transcript' in decoded) this.#push(decoded);
      else this.#finish(decoded);
    });
    socket.on('close', (code, reason) => {
      this.#finish({
        error: new AwpStreamClosedError({
          code: 'stream_closed',
          detail: `the socket closed (${code}${reason.length ? ` ${reason.toString()}` : ''}) before finish`,
          requestId: this.sessionId,
          retryable: true,
        }),
      });
    });
    socket.on('error', (cause) => {
      this.#finish({
        error: new AwpConnectionError({
          code: 'connection_error',
          detail: `the session failed: ${cause.message}`,
          requestId: this.sessionId,
          retryable: true,
          cause,
        }),
      });
    });
  }

  /** After `stop`, a silent service within `timeoutMs` fails the session. */
  #armIdle(): void {
    if (!this.#stopSent || this.#ended) return;
    clearTimeout(this.#idle);
    if (this.#timeoutMs <= 0 || !Number.isFinite(this.#timeoutMs)) return;
    this.#idle = setTimeout(() => {
      this.#finish({
        error: new AwpTimeoutError({
          code: 'timeout',
          detail: `no event within ${this.#timeoutMs} ms`,
          requestId: this.sessionId,
          retryable: true,
        }),
      });
    }, this.#timeoutMs);
  }

  #push(item: Item): void {
    this.#items.push(item);
    if (this.#items.length >= HIGH_WATER) this.#socket?.pause();
    this.#wake?.();
  }

  /** Ends the session once: the terminal item is queued and the socket closed. */
  #finish(item: { done: TranscriptionResult } | { error: AwpError }): void {
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
      this.#settleStarted.reject(item.error);
    }
    for (const flush of this.#flushes.splice(0)) {
      if ('done' in item) flush.resolve();
      else flush.reject(item.error);
    }
    this.#push(item);
  }

  async #feed(audio: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<void> {
    try {
      if (audio instanceof Uint8Array) await this.sendAudio(audio);
      else for await (const chunk of audio) await this.sendAudio(chunk);
      await this.end();
    } catch (error) {
      this.#finish({
        error:
          error instanceof AwpError
            ? error
            : new AwpError({
                code: 'input_failed',
                detail: `the audio source failed: ${(error as Error)?.message ?? String(error)}`,
                requestId: this.sessionId,
                retryable: false,
                cause: error,
              }),
      });
    }
  }

  async #send(data: string | Uint8Array, what: string): Promise<void> {
    const socket = await this.#opened;
    if (this.#failure) throw this.#failure;
    if (this.#ended) {
      throw new AwpError({
        code: 'stream_finished',
        detail: `cannot send ${what}: the session already finished`,
        requestId: this.sessionId,
        retryable: false,
      });
    }
    await new Promise<void>((resolve, reject) =>
      socket.send(data, (error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * Sends audio (raw PCM in the session's `audio_format`) as binary frames of at most
   * 32 KiB, when driving the session yourself.
   *
   * @example
   * ```ts
   * microphone.on('data', (pcm) => void stream.sendAudio(pcm));
   * ```
   */
  async sendAudio(audio: Uint8Array): Promise<void> {
    for (let offset = 0; offset < audio.byteLength; offset += FRAME_BYTES) {
      await this.#send(audio.subarray(offset, offset + FRAME_BYTES), 'audio');
    }
  }

  /**
   * Sends `flush`: the utterance so far is finalized now (push-to-talk release). Resolves
   * once the service has delivered its finals.
   *
   * @example
   * ```ts
   * await stream.flush(); // every final before this point has been yielded
   * ```
   */
  async flush(): Promise<void> {
    const answered = new Promise<void>((resolve, reject) => {
      this.#flushes.push({ resolve, reject });
    });
    answered.catch(() => {});
    await this.#send(JSON.stringify({ event: 'flush' }), 'flush');
    await answered;
  }

  /**
   * Sends `stop`: the rest is transcribed, then `usage` and `finish` end the session.
   *
   * @example
   * ```ts
   * await stream.end();
   * const { audioMs, cost } = await stream.result;
   * ```
   */
  async end(): Promise<void> {
    if (this.#stopSent) return;
    await this.#send(JSON.stringify({ event: 'stop' }), 'stop');
    this.#stopSent = true;
    this.#armIdle();
  }

  /** Closes the socket at once (the service keeps what it received). */
  close(): void {
    this.#finish({ error: this.#abortError('the session was closed') });
  }

  /**
   * The transcripts, interims and finals, in order; one iteration per session.
   *
   * @example
   * ```ts
   * for await (const { segmentId, text, final } of stream) captions.set(segmentId, text, final);
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncIterator<Transcript> {
    if (this.#iterating) throw new Error('a transcription stream can be iterated once');
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
        if (this.#items.length < HIGH_WATER / 4 && !this.#ended) this.#socket?.resume();
        if ('transcript' in item) yield item.transcript;
        else if ('done' in item) return;
        else throw item.error;
      }
    } finally {
      if (!this.#ended) this.close();
    }
  }

  #abortError(detail: string, cause?: unknown): AwpAbortError {
    return new AwpAbortError({
      code: 'aborted',
      detail,
      requestId: this.sessionId,
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
