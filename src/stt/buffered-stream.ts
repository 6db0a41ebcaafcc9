import { cancelledError } from './errors.ts';
import { EventQueue } from './event-queue.ts';
import {
  STT_SAMPLE_RATE_HZ,
  type SttEvent,
  type SttOptions,
  type SttStream,
  type SttTranscript,
  samplesToMs,
} from './provider.ts';

/** Recognizes one utterance; the engine-specific part of a buffered stream. */
export type TranscribeUtterance = (
  samples: Int16Array,
  options: SttOptions,
  signal: AbortSignal,
) => Promise<SttTranscript>;

/**
 * Longest utterance kept before it is transcribed without waiting for `flush()`: a bound on
 * memory when the VAD never fires (one Whisper window is 30 s, so nothing is lost).
 */
export const DEFAULT_MAX_UTTERANCE_MS = 30_000;

/** How a buffered stream behaves beyond its engine. */
export interface BufferedSttStreamOptions {
  /** Longest utterance kept before it is transcribed without waiting for `flush()`. */
  maxUtteranceMs?: number;
  /**
   * Whether `silenceStarted()` starts transcribing early (see there). Worth it for a local
   * engine, whose only cost is CPU; a paid endpoint would bill every abandoned start.
   */
  earlyStart?: boolean;
  /** Told what became of each early start: a flush took it, or speech (or a cut) did not. */
  onEarlyStart?: (outcome: 'used' | 'abandoned') => void;
}

/**
 * A transcription started at `silenceStarted()`, kept for the `flush()` that may use it.
 * Every cut ends it, so it always covers the start of the utterance being buffered.
 */
interface EarlyStart {
  result: Promise<SttTranscript>;
  abort: AbortController;
}

/**
 * A recognition stream for engines that only transcribe whole utterances (Whisper, the
 * OpenAI-compatible endpoint): frames are buffered until `flush()`, then the utterance is
 * transcribed and yields one `final` (none for silence) and the `flushed` marker.
 * Utterances are transcribed one after another so events stay in audio order; the first
 * failure ends the stream with that error.
 *
 * With `earlyStart`, a pause in the speech (`silenceStarted()`) starts transcribing the
 * utterance so far while the VAD still waits to be sure the speaker is done; the `flush()`
 * that follows with no speech in between takes that transcript (the audio after it is the
 * pause) instead of starting the engine only then.
 */
export class BufferedSttStream implements SttStream {
  readonly #transcribe: TranscribeUtterance;
  readonly #options: SttOptions;
  readonly #maxUtteranceSamples: number;
  readonly #queue = new EventQueue<SttEvent>();
  /** Aborted by the caller's signal or when the consumer stops iterating early. */
  readonly #stop = new AbortController();
  readonly #signal: AbortSignal;
  #chunks: Int16Array[] = [];
  #bufferedSamples = 0;
  #utteranceStartSample = 0;
  #totalSamples = 0;
  #chain: Promise<void> = Promise.resolve();
  #ended = false;
  readonly #earlyStartEnabled: boolean;
  readonly #onEarlyStart: ((outcome: 'used' | 'abandoned') => void) | undefined;
  #early: EarlyStart | undefined;

  constructor(
    transcribe: TranscribeUtterance,
    options: SttOptions,
    signal: AbortSignal,
    {
      maxUtteranceMs = DEFAULT_MAX_UTTERANCE_MS,
      earlyStart = false,
      onEarlyStart,
    }: BufferedSttStreamOptions = {},
  ) {
    this.#transcribe = transcribe;
    this.#options = { ...options };
    this.#maxUtteranceSamples = Math.round((maxUtteranceMs * STT_SAMPLE_RATE_HZ) / 1000);
    this.#earlyStartEnabled = earlyStart;
    this.#onEarlyStart = onEarlyStart;
    this.#signal = AbortSignal.any([signal, this.#stop.signal]);
    const onAbort = () => this.#queue.fail(cancelledError());
    if (this.#signal.aborted) onAbort();
    else this.#signal.addEventListener('abort', onAbort, { once: true });
  }

  pushAudio(samples: Int16Array): void {
    if (this.#ended || this.#queue.done || samples.length === 0) return;
    // Copied: the caller may reuse its frame buffer.
    this.#chunks.push(samples.slice());
    this.#bufferedSamples += samples.length;
    this.#totalSamples += samples.length;
    if (this.#bufferedSamples >= this.#maxUtteranceSamples) this.#cut(false);
  }

  flush(): void {
    if (this.#ended || this.#queue.done) return;
    this.#cut(true);
  }

  /**
   * The speaker paused: with `earlyStart`, transcription of the audio so far starts now
   * (after the utterances before it). A later `speechResumed()` abandons it.
   */
  silenceStarted(): void {
    if (!this.#earlyStartEnabled || this.#ended || this.#queue.done) return;
    if (this.#bufferedSamples === 0) return;
    this.#dropEarlyStart();
    const samples = concatSamples(this.#chunks, this.#bufferedSamples);
    // The buffer now holds one chunk: what the early start heard.
    this.#chunks = [samples];
    const abort = new AbortController();
    const signal = AbortSignal.any([this.#signal, abort.signal]);
    const result = this.#chain.then(() => this.#transcribe(samples, this.#options, signal));
    // Its failure is read by the flush that uses it; unused, it is dropped.
    result.catch(() => {});
    this.#early = { result, abort };
    if (this.#options.preflight) this.#preflight(result, abort.signal, this.#utteranceStartSample);
  }

  /**
   * Yields an early start's transcript as `preflight` once it is ready, unless speech came
   * back (or a cut other than the flush ended it) first. A flush that took it yields its
   * `final` after this, in the same order the two were chained.
   */
  #preflight(result: Promise<SttTranscript>, dropped: AbortSignal, startSample: number): void {
    const sampleCount = this.#bufferedSamples;
    result.then(
      (transcript) => {
        const text = transcript.text.trim();
        if (dropped.aborted || this.#queue.done || text === '') return;
        this.#queue.push({
          type: 'preflight',
          text,
          language: transcript.language,
          startMs: samplesToMs(startSample),
          endMs: samplesToMs(startSample + sampleCount),
          confidence: transcript.confidence,
        });
      },
      () => {},
    );
  }

  /** Speech came back after `silenceStarted()`: the early start no longer covers it. */
  speechResumed(): void {
    this.#dropEarlyStart();
  }

  #dropEarlyStart(): void {
    if (!this.#early) return;
    this.#early.abort.abort();
    this.#early = undefined;
    this.#onEarlyStart?.('abandoned');
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#bufferedSamples > 0) this.#cut(false);
    this.#chain = this.#chain.then(() => this.#queue.end());
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    try {
      yield* this.#queue;
    } finally {
      // A consumer that stops early (break, throw) stops the work it no longer wants.
      if (!this.#queue.done) this.#stop.abort();
    }
  }

  /** Hands the buffered utterance to the engine; `flushed` marks a caller's `flush()`. */
  #cut(flushed: boolean): void {
    const chunks = this.#chunks;
    const startSample = this.#utteranceStartSample;
    const sampleCount = this.#bufferedSamples;
    // An early start serves the flush that ends the pause it began in; any other cut
    // (the length bound, end()) transcribes the whole buffer.
    const early = flushed ? this.#early : undefined;
    if (early) {
      this.#early = undefined;
      this.#onEarlyStart?.('used');
    } else {
      this.#dropEarlyStart();
    }
    this.#chunks = [];
    this.#bufferedSamples = 0;
    this.#utteranceStartSample = this.#totalSamples;
    this.#chain = this.#chain
      .then(async () => {
        if (this.#queue.done) return;
        if (sampleCount > 0) {
          const result = early
            ? await early.result
            : await this.#transcribe(
                concatSamples(chunks, sampleCount),
                this.#options,
                this.#signal,
              );
          const text = result.text.trim();
          if (text !== '') {
            this.#queue.push({
              type: 'final',
              endpoint: false,
              text,
              language: result.language,
              startMs: samplesToMs(startSample),
              endMs: samplesToMs(startSample + sampleCount),
              confidence: result.confidence,
            });
          }
        }
        if (flushed) this.#queue.push({ type: 'flushed' });
      })
      .catch((error: unknown) => {
        this.#queue.fail(this.#signal.aborted ? cancelledError() : error);
      });
  }
}

function concatSamples(chunks: readonly Int16Array[], total: number): Int16Array {
  const out = new Int16Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
