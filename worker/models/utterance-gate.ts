import { STT_SAMPLE_RATE_HZ } from '../stt/provider.ts';

/**
 * Audio kept from before an utterance opens: Silero reports the start of speech after it
 * has heard some (its minimum speech duration plus inference), and the first syllable must
 * not be cut off.
 */
export const LEAD_IN_MS = 600;

/**
 * Decides which microphone audio reaches an utterance-based STT engine: only what lies
 * between `open()` (start of speech, push-to-talk start) and `close()` (the flush), plus a
 * lead-in from just before `open()`. A pass-through gate (streaming engines) lets everything
 * through.
 */
export class UtteranceGate {
  readonly #leadInSamples = Math.round((LEAD_IN_MS * STT_SAMPLE_RATE_HZ) / 1000);
  #leadIn: Int16Array[] = [];
  #leadInLength = 0;
  #open: boolean;

  constructor(private readonly gated: boolean) {
    this.#open = !gated;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Opens the utterance; the lead-in is handed over with the next `push`. */
  open(): void {
    this.#open = true;
  }

  /** Closes the utterance (the engine is flushed next). */
  close(): void {
    if (this.gated) this.#open = false;
  }

  /** The chunks to send to the engine for these samples (none while closed). */
  push(samples: Int16Array): Int16Array[] {
    if (!this.gated) return [samples];
    if (this.#open) {
      const out = this.#leadIn;
      this.#leadIn = [];
      this.#leadInLength = 0;
      out.push(samples);
      return out;
    }
    // Copied: the framework may reuse frame buffers.
    this.#leadIn.push(samples.slice());
    this.#leadInLength += samples.length;
    while (
      this.#leadIn.length > 1 &&
      this.#leadInLength - (this.#leadIn[0]?.length ?? 0) >= this.#leadInSamples
    ) {
      this.#leadInLength -= this.#leadIn.shift()?.length ?? 0;
    }
    return [];
  }
}
