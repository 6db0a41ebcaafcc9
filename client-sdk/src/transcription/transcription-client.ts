import { Emitter } from '../internal/emitter.ts';
import { createAudioContext } from './audio-capture.ts';
import { TranscriptionError } from './errors.ts';
import type {
  TranscriptionConnectionState,
  TranscriptionEventMap,
  TranscriptionEventName,
  TranscriptionListener,
  TranscriptionResult,
  TranscriptionStarted,
  TranscriptionTranscript,
} from './events.ts';
import {
  type ResolvedTranscriptionOptions,
  resolveTranscriptionOptions,
  type TranscriptionClientOptions,
  type TranscriptionStartOptions,
} from './options.ts';
import { aborted, SessionRun } from './session-run.ts';
import { TokenSource } from './token.ts';

/**
 * Realtime speech to text in the browser: the microphone (or a stream the app has) through
 * an AudioWorklet, as 16 kHz PCM over the api's `/v1/realtime-transcription` WebSocket,
 * with interim and final transcripts as events.
 *
 * @example
 * ```ts
 * import { TranscriptionClient } from '@awp/client-sdk';
 *
 * const transcription = new TranscriptionClient({
 *   // your backend mints one token per call (POST /v1/realtime-transcription-tokens)
 *   token: () => fetch('/my/transcription-token', { method: 'POST' }).then((r) => r.json()),
 *   language: 'en',
 * });
 * transcription.on('transcript', ({ segmentId, text, final }) => captions.set(segmentId, text, final));
 * await transcription.start(); // asks for the microphone
 * const { transcript, cost } = await transcription.stop();
 * ```
 */
export class TranscriptionClient {
  readonly #options: ResolvedTranscriptionOptions;
  readonly #tokens: TokenSource;
  readonly #emitter = new Emitter<TranscriptionEventMap>();
  #state: TranscriptionConnectionState = 'disconnected';
  #run: SessionRun | null = null;
  #muted = false;

  /** Throws `invalid_options` (for example "token must be a function") when a rule is broken. */
  constructor(options: TranscriptionClientOptions) {
    this.#options = resolveTranscriptionOptions(options);
    this.#tokens = new TokenSource(this.#options.token);
  }

  /** Current state: `disconnected`, `connecting`, `connected` or `stopping`. */
  get connectionState(): TranscriptionConnectionState {
    return this.#state;
  }

  /** The running session as the api started it; null before `started` and after the end. */
  get session(): TranscriptionStarted | null {
    return this.#run?.info ?? null;
  }

  /** The microphone track the library opened for the session; null otherwise. */
  get microphoneTrack(): MediaStreamTrack | null {
    return this.#run?.microphoneTrack ?? null;
  }

  /**
   * While true, silence is sent in place of the captured audio: the session stays open and
   * its times keep matching the recording (silence is audio received, and charged as such).
   * Kept across sessions.
   */
  get muted(): boolean {
    return this.#muted;
  }

  set muted(value: boolean) {
    this.#muted = Boolean(value);
    if (this.#run) this.#run.muted = this.#muted;
  }

  /**
   * Subscribes to one of the five events; returns the function that unsubscribes.
   *
   * @example
   * ```ts
   * const off = transcription.on('transcript', (t) => t.final && lines.push(t.text));
   * off();
   * ```
   */
  on<K extends TranscriptionEventName>(name: K, listener: TranscriptionListener<K>): () => void {
    if (typeof listener !== 'function') {
      throw new TranscriptionError('invalid_options', 'on(name, listener) needs a function.');
    }
    return this.#emitter.on(name, listener);
  }

  /**
   * Opens the microphone (or uses `mediaStream`), then asks the `token` callback for a fresh
   * token and starts a session; resolves with it once the api started it. Audio is captured
   * from the moment the source opens and sent in order once the socket is open. Call it
   * from a user gesture (a click): browsers start audio processing only then.
   */
  start(options: TranscriptionStartOptions = {}): Promise<TranscriptionStarted> {
    if (this.#state !== 'disconnected') {
      throw new TranscriptionError('already_connected', `start() while ${this.#state}.`);
    }
    checkStartOptions(options);
    // Created before any await, inside the caller's user gesture.
    const context = createAudioContext();
    const run = new SessionRun(
      context,
      this.#options,
      options,
      this.#tokens,
      {
        state: (state) => {
          if (this.#run === run) this.#setState(state);
        },
        emit: (name, payload) => {
          if (this.#run === run) this.#emitter.emit(name, payload);
        },
        ended: () => {
          if (this.#run !== run) return;
          this.#run = null;
          this.#setState('disconnected');
        },
      },
      this.#muted,
    );
    this.#run = run;
    this.#setState('connecting');
    void run.begin();
    return run.startedPromise;
  }

  /**
   * Ends the current utterance now (push-to-talk release; with `endpointing: 'manual'` the
   * only way one ends). Resolves when the api answered `flushed`, with the finals that
   * arrived since the previous flush was answered.
   */
  flush(): Promise<TranscriptionTranscript[]> {
    return this.#active('flush').flush();
  }

  /**
   * Ends the session in order: the audio captured so far is sent, the microphone released,
   * the rest transcribed; resolves with the result (usage, cost, the finals) at `finish`.
   */
  stop(): Promise<TranscriptionResult> {
    if (this.#state === 'stopping' && this.#run) return this.#run.stop();
    return this.#active('stop').stop();
  }

  /**
   * Cancels: closes the socket without `stop` and releases the microphone. Pending
   * `start()`, `flush()` and `stop()` reject with `aborted`. The api still transcribes and
   * stores the audio it received (and charges it), as for a closed tab.
   */
  async close(): Promise<void> {
    await this.#run?.fail(aborted());
  }

  #active(method: string): SessionRun {
    if (!this.#run || (this.#state !== 'connecting' && this.#state !== 'connected')) {
      throw new TranscriptionError(
        'not_connected',
        `${method}() needs a started session (state: ${this.#state}).`,
      );
    }
    return this.#run;
  }

  #setState(state: TranscriptionConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#emitter.emit('connectionState', state);
  }
}

function checkStartOptions(options: TranscriptionStartOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TranscriptionError('invalid_options', 'start(options) takes an object.');
  }
  const { mediaStream } = options;
  if (
    mediaStream !== undefined &&
    typeof MediaStream === 'function' &&
    !(mediaStream instanceof MediaStream)
  ) {
    throw new TranscriptionError('invalid_options', 'mediaStream must be a MediaStream.');
  }
  if (mediaStream && mediaStream.getAudioTracks().length === 0) {
    throw new TranscriptionError('invalid_options', 'mediaStream has no audio track.');
  }
  if (mediaStream && options.microphone !== undefined) {
    throw new TranscriptionError(
      'invalid_options',
      'Pass mediaStream or microphone constraints, not both.',
    );
  }
}
