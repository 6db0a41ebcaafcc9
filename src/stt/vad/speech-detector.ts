/** Where a change of voice activity was found. */
export type SpeechChange =
  /** Speech began (after `minSpeechMs` above the threshold). */
  | 'start'
  /** Inside speech, silence has lasted `pauseMs`: the speaker may be done. */
  | 'pause'
  /** Speech came back after a `pause`. */
  | 'resume'
  /** Silence has lasted `minSilenceMs`: the utterance is over. */
  | 'end';

/** How {@link SpeechDetector} reads Silero's probabilities. */
export interface SpeechDetectorOptions {
  /** Length of one window in milliseconds (Silero at 16 kHz: 32). */
  windowMs: number;
  /** Probability above which a window counts as speech. Default 0.5. */
  threshold?: number;
  /** Speech needed before `start`. Default 50 ms. */
  minSpeechMs?: number;
  /** Silence that ends an utterance. Default 450 ms, the worker's. */
  minSilenceMs?: number;
  /** Silence inside speech reported as `pause` (early transcription); 0: never. */
  pauseMs?: number;
}

/**
 * The one turn logic of voice activity (realtime transcription, and the agent worker's
 * turns through `SileroVad`), over a stream of window probabilities: an exponential filter
 * (0.35 of the previous value), speech after `minSpeechMs` above the threshold, the end
 * after `minSilenceMs` below it (the rules of LiveKit's Silero plugin). Pure: one call per
 * window, in order.
 *
 * @example
 * ```ts
 * const detector = new SpeechDetector({ windowMs: 32 });
 * for (const p of probabilities) if (detector.push(p) === 'end') flush();
 * ```
 */
export class SpeechDetector {
  readonly #windowMs: number;
  readonly #threshold: number;
  readonly #minSpeechMs: number;
  readonly #minSilenceMs: number;
  readonly #pauseMs: number;
  #filtered: number | undefined;
  #speaking = false;
  #paused = false;
  #speechMs = 0;
  #silenceMs = 0;

  constructor(options: SpeechDetectorOptions) {
    this.#windowMs = options.windowMs;
    this.#threshold = options.threshold ?? 0.5;
    this.#minSpeechMs = options.minSpeechMs ?? 50;
    this.#minSilenceMs = options.minSilenceMs ?? 450;
    this.#pauseMs = options.pauseMs ?? 0;
  }

  get speaking(): boolean {
    return this.#speaking;
  }

  /** The last window's probability after the filter (0 before the first window). */
  get probability(): number {
    return this.#filtered ?? 0;
  }

  /** Speech since the last window below the threshold, in milliseconds. */
  get speechMs(): number {
    return this.#speechMs;
  }

  /** Silence since the last window above the threshold (it goes on counting after `end`). */
  get silenceMs(): number {
    return this.#silenceMs;
  }

  get minSilenceMs(): number {
    return this.#minSilenceMs;
  }

  /** One window's probability; the change it makes, if any. */
  push(probability: number): SpeechChange | undefined {
    this.#filtered =
      this.#filtered === undefined ? probability : 0.35 * this.#filtered + 0.65 * probability;
    if (this.#filtered > this.#threshold) {
      this.#speechMs += this.#windowMs;
      this.#silenceMs = 0;
      if (!this.#speaking && this.#speechMs >= this.#minSpeechMs) {
        this.#speaking = true;
        return 'start';
      }
      if (this.#paused) {
        this.#paused = false;
        return 'resume';
      }
      return undefined;
    }
    this.#silenceMs += this.#windowMs;
    this.#speechMs = 0;
    if (!this.#speaking) return undefined;
    if (this.#silenceMs > this.#minSilenceMs) {
      this.#speaking = false;
      this.#paused = false;
      return 'end';
    }
    if (!this.#paused && this.#pauseMs > 0 && this.#silenceMs >= this.#pauseMs) {
      this.#paused = true;
      return 'pause';
    }
    return undefined;
  }

  /** Back to silence, the filter kept (the utterance was ended by a client's `flush`). */
  reset(): void {
    this.#speaking = false;
    this.#paused = false;
    this.#speechMs = 0;
    this.#silenceMs = 0;
  }
}
