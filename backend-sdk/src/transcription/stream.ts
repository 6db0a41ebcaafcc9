import type { AwpError } from '../errors.ts';
import { type Decoded, EventSocket, type StreamContext } from '../internal/event-socket.ts';
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
export class TranscriptionStream extends EventSocket<Transcript, TranscriptionResult> {
  /** The service's session id, once `started` named it. */
  sessionId: string | undefined;
  /** Resolves with the `started` event (rejects like the iteration when the session fails first). */
  readonly started: Promise<TranscriptionStarted>;

  readonly #decoder = new TranscriptionDecoder();
  readonly #flushes: { resolve: () => void; reject: (error: AwpError) => void }[] = [];
  #settleStarted!: { resolve: (s: TranscriptionStarted) => void; reject: (e: AwpError) => void };
  readonly #start: Record<string, unknown>;

  /** @internal Created by `client.transcription.stream`. */
  constructor(context: StreamContext, options: TranscriptionStreamOptions) {
    super(context, {
      path: TRANSCRIPTION_PATH,
      token: options.transcriptionToken,
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? context.timeoutMs,
      maxAttempts: options.maxAttempts,
      highWater: HIGH_WATER,
      noun: 'session',
    });
    this.started = new Promise<TranscriptionStarted>((resolve, reject) => {
      this.#settleStarted = { resolve, reject };
    });
    // The iteration reports failures; an unread promise must not crash the process.
    this.started.catch(() => {});
    const start: Record<string, unknown> = { event: 'start', audio_format: options.audio_format };
    for (const key of [
      'language',
      'interim_results',
      'endpointing',
      'partner_session_id',
    ] as const) {
      if (options[key] !== undefined) start[key] = options[key];
    }
    this.#start = start;
    if (options.audio !== undefined) void this.#feed(options.audio);
  }

  protected requestIdForErrors(): string | undefined {
    return this.sessionId;
  }

  protected startEvent(): Record<string, unknown> {
    return this.#start;
  }

  protected decode(text: string): Decoded<Transcript, TranscriptionResult> {
    const decoded = this.#decoder.frame(text);
    if (!decoded) return undefined;
    if ('started' in decoded) {
      this.sessionId = decoded.started.sessionId;
      this.#settleStarted?.resolve(decoded.started);
      return undefined;
    }
    if ('flushed' in decoded) {
      this.#flushes.shift()?.resolve();
      return undefined;
    }
    if ('transcript' in decoded) return { item: decoded.transcript };
    return decoded;
  }

  protected override ended(outcome: { done: TranscriptionResult } | { error: AwpError }): void {
    if ('error' in outcome) this.#settleStarted?.reject(outcome.error);
    for (const flush of this.#flushes.splice(0)) {
      if ('done' in outcome) flush.resolve();
      else flush.reject(outcome.error);
    }
  }

  async #feed(audio: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<void> {
    try {
      if (audio instanceof Uint8Array) await this.sendAudio(audio);
      else for await (const chunk of audio) await this.sendAudio(chunk);
      await this.end();
    } catch (error) {
      this.inputFailed(error, 'audio source');
    }
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
      await this.send(audio.subarray(offset, offset + FRAME_BYTES), 'audio');
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
    await this.send(JSON.stringify({ event: 'flush' }), 'flush');
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
    await this.sendStop();
  }
}
