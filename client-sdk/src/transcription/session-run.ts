import { AudioCapture } from './audio-capture.ts';
import { TranscriptionError, toTranscriptionError } from './errors.ts';
import type {
  TranscriptionConnectionState,
  TranscriptionEventMap,
  TranscriptionResult,
  TranscriptionStarted,
  TranscriptionTranscript,
} from './events.ts';
import {
  type ResolvedTranscriptionOptions,
  socketUrl,
  type TranscriptionStartOptions,
} from './options.ts';
import { TranscriptionSocket } from './socket.ts';
import { expired, type IssuedToken, type TokenSource, tokenExpired } from './token.ts';

/** The rate this library sends: the engines' own rate, a third of 48 kHz's bytes. */
export const PCM_RATE_HZ = 16_000;
/** Audio per binary frame: 50 ms, 1,600 bytes at 16 kHz. */
export const CHUNK_MS = 50;

/** How a run reports to its client. */
export interface RunHooks {
  state(state: TranscriptionConnectionState): void;
  emit<K extends keyof TranscriptionEventMap>(name: K, payload: TranscriptionEventMap[K]): void;
  /** The run is over (finished, failed or closed): the client may start another. */
  ended(): void;
}

type Outgoing = { kind: 'audio'; pcm: ArrayBuffer } | { kind: 'event'; event: 'flush' | 'stop' };

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: TranscriptionError): void;
}

export function aborted(): TranscriptionError {
  return new TranscriptionError('aborted', 'close() ended the session.');
}

/**
 * One session of a {@link TranscriptionClient}, from `start()` to `finish`, an error or
 * `close()`: the audio source opens first (audio is captured from then on and kept in order
 * until the socket takes it), then the token is asked for and the socket opened. `flush`
 * and `stop` go after every chunk captured before them.
 */
export class SessionRun {
  readonly #abort = new AbortController();
  readonly #started: Waiter<TranscriptionStarted>;
  readonly startedPromise: Promise<TranscriptionStarted>;
  #capture: AudioCapture | null = null;
  #socket: TranscriptionSocket | null = null;
  /** What was captured or asked for before the socket existed, in order. */
  #early: Outgoing[] = [];
  readonly #flushes: Waiter<TranscriptionTranscript[]>[] = [];
  readonly #segments: TranscriptionTranscript[] = [];
  #flushedUpTo = 0;
  #info: TranscriptionStarted | null = null;
  #stop: Promise<TranscriptionResult> | null = null;
  #stopWaiter: Waiter<TranscriptionResult> | null = null;
  #ended = false;
  #muted: boolean;

  constructor(
    private readonly context: AudioContext,
    private readonly options: ResolvedTranscriptionOptions,
    private readonly startOptions: TranscriptionStartOptions,
    private readonly tokens: TokenSource,
    private readonly hooks: RunHooks,
    muted: boolean,
  ) {
    this.#muted = muted;
    let waiter: Waiter<TranscriptionStarted> | undefined;
    this.startedPromise = new Promise<TranscriptionStarted>((resolve, reject) => {
      waiter = { resolve, reject };
    });
    this.#started = waiter as Waiter<TranscriptionStarted>;
  }

  get info(): TranscriptionStarted | null {
    return this.#info;
  }

  get microphoneTrack(): MediaStreamTrack | null {
    return this.#capture?.microphoneTrack ?? null;
  }

  set muted(muted: boolean) {
    this.#muted = muted;
    if (this.#capture) this.#capture.muted = muted;
  }

  /** Opens the source, then the token and the socket. Failures end the run. */
  async begin(): Promise<void> {
    try {
      const capture = await AudioCapture.open(
        this.context,
        {
          mediaStream: this.startOptions.mediaStream,
          microphone: this.startOptions.microphone,
          workletUrl: this.options.workletUrl,
          outputRate: PCM_RATE_HZ,
          chunkSamples: (PCM_RATE_HZ * CHUNK_MS) / 1000,
          muted: this.#muted,
          audio: (pcm) => this.#send({ kind: 'audio', pcm }),
          ended: () => this.#sourceEnded(),
        },
        this.#abort.signal,
      );
      if (this.#ended || this.#stop) {
        // Stopped while the source opened: nothing was captured, the session still ends in order.
        await capture.close();
      } else {
        this.#capture = capture;
      }
      if (this.#ended) return;
      const issued = await this.tokens.next();
      if (this.#ended) return;
      this.#socket = new TranscriptionSocket(
        socketUrl(this.options.apiOrigin, issued.websocketUrl, issued.token),
        this.#startFields(),
        {
          started: (started) => this.#onStarted(started),
          transcript: (transcript) => this.#onTranscript(transcript),
          flushed: () => this.#onFlushed(),
          finished: (end) => this.#onFinished(end),
          failed: (error) => void this.fail(error),
        },
        () => handshakeError(issued),
      );
      const early = this.#early;
      this.#early = [];
      for (const item of early) this.#send(item);
    } catch (error) {
      await this.fail(toTranscriptionError(error, 'connection_failed'));
    }
  }

  /** Ends the utterance now; resolves with the finals since the previous flush, at `flushed`. */
  flush(): Promise<TranscriptionTranscript[]> {
    const promise = new Promise<TranscriptionTranscript[]>((resolve, reject) => {
      this.#flushes.push({ resolve, reject });
    });
    void this.#afterCaptured(false).then(() => this.#send({ kind: 'event', event: 'flush' }));
    return promise;
  }

  /** Ends the session in order: the audio captured so far, `stop`, then `finish`. */
  stop(): Promise<TranscriptionResult> {
    if (this.#stop) return this.#stop;
    this.#stop = new Promise<TranscriptionResult>((resolve, reject) => {
      this.#stopWaiter = { resolve, reject };
    });
    this.hooks.state('stopping');
    void this.#afterCaptured(true).then(async () => {
      this.#send({ kind: 'event', event: 'stop' });
      // Nothing more is captured: the microphone is released now, before the api answers.
      await this.#releaseAudio();
    });
    return this.#stop;
  }

  /**
   * Ends the run with `error` (`aborted`: quietly, as `close()` does); resolves once the
   * audio is released.
   */
  fail(error: TranscriptionError): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#ended = true;
    this.#abort.abort(error);
    this.#socket?.close();
    const released = this.#releaseAudio();
    this.#started.reject(error);
    for (const waiter of this.#flushes.splice(0)) waiter.reject(error);
    this.#stopWaiter?.reject(error);
    if (error.code !== 'aborted') this.hooks.emit('error', error);
    this.hooks.ended();
    return released;
  }

  /** Stops the capture (the microphone's track) and closes the AudioContext. */
  async #releaseAudio(): Promise<void> {
    if (this.#capture) return this.#capture.close();
    if (this.context.state !== 'closed') await this.context.close().catch(() => undefined);
  }

  #startFields(): Record<string, unknown> {
    const { language, interimResults, endpointing, partnerSessionId } = this.options;
    return {
      audio_format: `pcm_${PCM_RATE_HZ}`,
      ...(language ? { language } : {}),
      interim_results: interimResults,
      endpointing,
      ...(partnerSessionId ? { partner_session_id: partnerSessionId } : {}),
    };
  }

  /** Resolves once every chunk captured so far was queued (`final`: and capture ended). */
  async #afterCaptured(final: boolean): Promise<void> {
    await this.#capture?.drain(final);
  }

  #send(item: Outgoing): void {
    if (this.#ended) return;
    const socket = this.#socket;
    if (!socket) {
      this.#early.push(item);
    } else if (item.kind === 'audio') {
      socket.sendAudio(item.pcm);
    } else {
      socket.sendEvent(item.event);
    }
  }

  #onStarted(started: TranscriptionStarted): void {
    this.#info = started;
    if (!this.#stop) this.hooks.state('connected');
    this.hooks.emit('started', started);
    this.#started.resolve(started);
  }

  #onTranscript(transcript: TranscriptionTranscript): void {
    if (transcript.final) this.#segments.push(transcript);
    this.hooks.emit('transcript', transcript);
  }

  #onFlushed(): void {
    const waiter = this.#flushes.shift();
    const finals = this.#segments.slice(this.#flushedUpTo);
    this.#flushedUpTo = this.#segments.length;
    waiter?.resolve(finals);
  }

  #onFinished(end: Omit<TranscriptionResult, 'segments' | 'transcript'>): void {
    if (this.#ended) return;
    this.#ended = true;
    void this.#releaseAudio();
    const segments = [...this.#segments];
    const result: TranscriptionResult = {
      ...end,
      segments,
      transcript: segments.map((s) => s.text).join(' '),
    };
    const unanswered = new TranscriptionError(
      'not_connected',
      'The session ended before the flush was answered.',
    );
    for (const waiter of this.#flushes.splice(0)) waiter.reject(unanswered);
    this.hooks.emit('finish', result);
    this.#stopWaiter?.resolve(result);
    this.hooks.ended();
  }

  /** The captured track ended: before the session started it fails, after it stops in order. */
  #sourceEnded(): void {
    if (this.#ended || this.#stop) return;
    const error = new TranscriptionError(
      'audio_source_ended',
      'The audio track ended (device unplugged, permission revoked, or its source ended); the session was stopped.',
      this.#info ? { sessionId: this.#info.sessionId } : {},
    );
    if (!this.#info) {
      void this.fail(error);
      return;
    }
    this.hooks.emit('error', error);
    // Its result arrives as the `finish` event.
    this.stop().catch(() => undefined);
  }
}

/** A handshake the browser reports as failed: the api refused the token, or was unreachable. */
function handshakeError(issued: IssuedToken): TranscriptionError {
  if (expired(issued)) return tokenExpired('has expired (the api refused it)');
  return new TranscriptionError(
    'connection_failed',
    'The transcription WebSocket did not open: the api refused the token (revoked key, an Origin outside STREAM_ALLOWED_ORIGINS, no transcription capability) or could not be reached. Browsers do not say which; the browser console shows the HTTP status.',
    { retryable: true },
  );
}
