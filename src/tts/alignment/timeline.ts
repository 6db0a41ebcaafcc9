import { pcmDurationMs } from '../../../media/pcm.ts';
import type { SynthesisChunk } from '../providers/alignment.ts';

/** One timed word or character as responses carry it. */
export interface PublicTiming {
  /** The word or character, as it appears in the request's text. */
  readonly text: string;
  /** Start in milliseconds of the request's output audio (from its first sample). */
  readonly start_ms: number;
  /** End in milliseconds of the request's output audio. */
  readonly end_ms: number;
}

/**
 * The timings of one request's audio across all its segments: each segment's timings
 * (relative to the segment's first sample) are moved by the duration of the audio before
 * it, so they are absolute from the start of the request's audio and the segments follow
 * each other without gap or overlap, as their audio does in the one encoded stream.
 * Milliseconds are rounded from exact times, so a word ends where the next one starts.
 *
 * Timings are handed out in order, each once: {@link take} those whose audio has started,
 * {@link takeAll} the rest.
 */
export class AlignmentTimeline {
  /** Audio of the finished segments, in ms. */
  #offsetMs = 0;
  /** Audio of the segment being spoken so far, in ms. */
  #segmentMs = 0;
  readonly #ready: PublicTiming[] = [];
  #lastEndMs = 0;

  /** One chunk of the segment being spoken, whose text the provider was given as `text`. */
  add(chunk: SynthesisChunk, text: string): void {
    for (const timing of chunk.timings ?? []) {
      const startMs = Math.max(this.#lastEndMs, Math.round(this.#offsetMs + timing.startS * 1000));
      const endMs = Math.max(startMs, Math.round(this.#offsetMs + timing.endS * 1000));
      this.#lastEndMs = endMs;
      this.#ready.push({
        text: text.slice(timing.textStart, timing.textEnd),
        start_ms: startMs,
        end_ms: endMs,
      });
    }
    this.#segmentMs += pcmDurationMs(chunk.data.byteLength, chunk.sampleRateHz);
  }

  /** The segment ended: the next one starts where its audio ends. */
  endSegment(): void {
    this.#offsetMs += this.#segmentMs;
    this.#segmentMs = 0;
  }

  /** The timings, not yet taken, that start before `deliveredMs` of audio. */
  take(deliveredMs: number): PublicTiming[] {
    let count = 0;
    while (count < this.#ready.length && this.#ready[count]!.start_ms < deliveredMs) count++;
    return this.#ready.splice(0, count);
  }

  /** Every timing not yet taken. */
  takeAll(): PublicTiming[] {
    return this.#ready.splice(0);
  }
}
