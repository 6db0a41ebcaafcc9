import { type Decoded, EventSocket, type StreamContext } from '../internal/event-socket.ts';
import type { AudioChunk, StreamResult, StreamStartRequest } from '../types/tts.ts';
import { StreamDecoder } from './events.ts';
import { splitText } from './text.ts';

export type { StreamContext } from '../internal/event-socket.ts';

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
 *
 * `result` resolves with `usage` and `finish` after the last chunk and rejects like the
 * iteration; `close()` cancels (cancelled speech is not replayed).
 */
export class TtsStream extends EventSocket<AudioChunk, StreamResult> {
  /** The service's request id, once the first event named it. */
  requestId: string | undefined;

  readonly #decoder = new StreamDecoder();
  readonly #start: Record<string, unknown>;

  /** @internal Created by `client.tts.stream`. */
  constructor(context: StreamContext, options: TtsStreamOptions) {
    super(context, {
      path: '/v1/tts/stream',
      token: options.streamToken,
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? context.timeoutMs,
      maxAttempts: options.maxAttempts,
      highWater: HIGH_WATER_CHUNKS,
      noun: 'stream',
    });
    const request: Record<string, unknown> = {
      voice_id: options.voice_id,
      output_format: options.output_format,
    };
    for (const key of ['partner_session_id', 'context_id', 'params', 'alignment'] as const) {
      if (options[key] !== undefined) request[key] = options[key];
    }
    this.#start = { event: 'start', request };
    if (options.text !== undefined) void this.#feed(options.text);
  }

  protected requestIdForErrors(): string | undefined {
    return this.requestId;
  }

  protected startEvent(): Record<string, unknown> {
    return this.#start;
  }

  protected decode(text: string): Decoded<AudioChunk, StreamResult> {
    const decoded = this.#decoder.frame(text);
    this.requestId ??= this.#decoder.requestId;
    if (!decoded) return undefined;
    return 'chunk' in decoded ? { item: decoded.chunk } : decoded;
  }

  async #feed(text: string | Iterable<string> | AsyncIterable<string>): Promise<void> {
    try {
      if (typeof text === 'string') {
        for (const piece of splitText(text)) await this.sendText(piece);
      } else {
        for await (const segment of text) {
          if (this.isEnded) return;
          if (segment === '') continue;
          for (const piece of splitText(segment)) await this.sendText(piece);
          await this.flush();
        }
      }
      await this.end();
    } catch (error) {
      this.inputFailed(error, 'text source');
    }
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
    await this.send(JSON.stringify({ event: 'text', text }), 'text');
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
    await this.send(JSON.stringify({ event: 'flush' }), 'flush');
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
    await this.sendStop();
  }
}
