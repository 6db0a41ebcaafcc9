import { VAD_WINDOW_SAMPLES } from './protocol.ts';

/** The model's rate: windows are {@link VAD_WINDOW_SAMPLES} samples of 16 kHz audio. */
const MODEL_RATE_HZ = 16_000;

/**
 * A stream's audio at its own rate, kept beside the 16 kHz windows the model reads: each
 * window's share of it (the frame an inference event carries) and the speech so far with a
 * lead-in before it (the frames of start and end of speech), bounded like LiveKit's Silero
 * plugin keeps them.
 */
export class InputAudio {
  /** Input samples per window, with its fraction (48 kHz: 1536; 44.1 kHz: 1411.2). */
  readonly #perWindow: number;
  readonly #leadInSamples: number;
  /** Input not yet given to a window, oldest first. */
  readonly #queue: Int16Array[] = [];
  #queued = 0;
  #fraction = 0;
  /** Speech buffer: the lead-in, then the speech; `#written` samples of it are used. */
  readonly #speech: Int16Array;
  #written = 0;

  constructor(
    readonly rate: number,
    leadInMs: number,
    maxSpeechMs: number,
  ) {
    this.#perWindow = (VAD_WINDOW_SAMPLES * rate) / MODEL_RATE_HZ;
    this.#leadInSamples = Math.trunc((leadInMs * rate) / 1000);
    this.#speech = new Int16Array(Math.trunc((maxSpeechMs * rate) / 1000) + this.#leadInSamples);
  }

  /** Input samples, in order. */
  push(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.#queue.push(samples);
    this.#queued += samples.length;
  }

  /**
   * The input audio of the next window, also written to the speech buffer (while it has
   * room; audio past its bound is dropped from it, not from the window).
   */
  takeWindow(): Int16Array {
    const exact = this.#perWindow + this.#fraction;
    const count = Math.min(Math.trunc(exact), this.#queued);
    this.#fraction = exact - Math.trunc(exact);
    const window = this.#take(count);
    const room = this.#speech.length - this.#written;
    this.#speech.set(window.subarray(0, room), this.#written);
    this.#written += Math.min(room, window.length);
    return window;
  }

  /** A copy of the speech buffer: the lead-in and the speech so far. */
  speech(): Int16Array {
    return this.#speech.slice(0, this.#written);
  }

  /** Keeps only the last lead-in's worth of audio: the next speech starts after it. */
  keepLeadIn(): void {
    if (this.#written <= this.#leadInSamples) return;
    this.#speech.copyWithin(0, this.#written - this.#leadInSamples, this.#written);
    this.#written = this.#leadInSamples;
  }

  #take(count: number): Int16Array {
    const out = new Int16Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.#queue[0] as Int16Array;
      const n = Math.min(count - filled, chunk.length);
      out.set(chunk.subarray(0, n), filled);
      filled += n;
      if (n === chunk.length) this.#queue.shift();
      else this.#queue[0] = chunk.subarray(n);
    }
    this.#queued -= count;
    return out;
  }
}
