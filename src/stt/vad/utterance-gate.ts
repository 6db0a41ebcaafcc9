import { STT_SAMPLE_RATE_HZ } from '../provider.ts';

/**
 * Audio kept from before an utterance opens: Silero reports the start of speech after it
 * has heard some (its minimum speech duration plus inference), a push-to-talk start
 * arrives over the network after the user pressed, and the first syllable must not be cut
 * off.
 */
export const LEAD_IN_MS = 600;

/**
 * How far back the gate looks for the least-delayed frame when it estimates how far the
 * audio it is handed runs behind real time (see `backlogMs`).
 */
export const LAG_WINDOW_MS = 5000;

/** What one `push` yields. */
export interface GateOutput {
  /** Chunks for the engine, in order. */
  chunks: Int16Array[];
  /** A scheduled close (`closeAfter`) happened: the utterance is over, flush the engine. */
  ended: boolean;
}

/**
 * Decides which microphone audio reaches an STT engine: only what lies between `open()`
 * (start of speech, push-to-talk start) and `close()` / `closeAfter()` (the end), plus a
 * lead-in from just before `open()`. A pass-through gate (streaming engines in automatic
 * mode) lets everything through.
 *
 * The end of a push-to-talk turn is placed on the audio's own timeline, not the wall
 * clock: on a busy machine frames reach the gate late, in bursts, behind the commit that
 * the user sent after them. The gate keeps an audio clock (milliseconds of audio received)
 * and the lag of each push (arrival time minus audio clock); the smallest lag of the
 * last few seconds is the pipeline's own delay, anything above it is backlog. A close
 * requested now takes effect once the backlog and the tail have been received.
 */
export class UtteranceGate {
  readonly #leadInSamples = Math.round((LEAD_IN_MS * STT_SAMPLE_RATE_HZ) / 1000);
  #leadIn: Int16Array[] = [];
  #leadInLength = 0;
  #gated: boolean;
  #open: boolean;
  /** Milliseconds of audio pushed so far. */
  #receivedMs = 0;
  /** Lags (arrival minus audio clock) of recent pushes, increasing: a sliding minimum. */
  #lags: { atMs: number; lagMs: number }[] = [];
  /** Audio-clock time at which a scheduled close takes effect. */
  #closeAtMs: number | undefined;

  constructor(gated: boolean) {
    this.#gated = gated;
    this.#open = !gated;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Turns gating on (utterances only) or off (everything passes, the lead-in is dropped). */
  setGated(gated: boolean): void {
    if (gated === this.#gated) return;
    this.#gated = gated;
    this.#open = !gated;
    this.#closeAtMs = undefined;
    this.#leadIn = [];
    this.#leadInLength = 0;
  }

  /** Opens the utterance; the lead-in is handed over with the next `push`. */
  open(): void {
    this.#open = true;
    this.#closeAtMs = undefined;
  }

  /** Closes the utterance now (the engine is flushed next). */
  close(): void {
    this.#closeAtMs = undefined;
    if (this.#gated) this.#open = false;
  }

  /**
   * Closes the utterance once the audio that was captured up to `nowMs` (the backlog
   * behind it, by the audio clock) and `tailMs` more have been pushed; `push` then reports
   * `ended`. Returns the backlog in milliseconds.
   */
  closeAfter(tailMs: number, nowMs: number = performance.now()): number {
    const backlog = this.backlogMs(nowMs);
    this.#closeAtMs = this.#receivedMs + backlog + tailMs;
    return backlog;
  }

  /** How far the audio pushed so far runs behind real time, beyond the usual delay. */
  backlogMs(nowMs: number = performance.now()): number {
    const floor = this.#lags[0]?.lagMs;
    if (floor === undefined) return 0;
    return Math.max(0, nowMs - this.#receivedMs - floor);
  }

  /** The engine's share of these samples, which arrived at `nowMs`. */
  push(samples: Int16Array, nowMs: number = performance.now()): GateOutput {
    this.#receivedMs += (samples.length * 1000) / STT_SAMPLE_RATE_HZ;
    this.#trackLag(nowMs);
    if (!this.#gated) return { chunks: [samples], ended: false };
    if (this.#open) {
      const chunks = this.#leadIn;
      this.#leadIn = [];
      this.#leadInLength = 0;
      chunks.push(samples);
      if (this.#closeAtMs !== undefined && this.#receivedMs >= this.#closeAtMs) {
        this.close();
        return { chunks, ended: true };
      }
      return { chunks, ended: false };
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
    return { chunks: [], ended: false };
  }

  #trackLag(nowMs: number): void {
    const lagMs = nowMs - this.#receivedMs;
    // A monotonic queue: entries with a lag at least this one's can never be the minimum.
    while ((this.#lags.at(-1)?.lagMs ?? Number.NEGATIVE_INFINITY) >= lagMs) this.#lags.pop();
    this.#lags.push({ atMs: nowMs, lagMs });
    while ((this.#lags[0]?.atMs ?? nowMs) < nowMs - LAG_WINDOW_MS) this.#lags.shift();
  }
}
