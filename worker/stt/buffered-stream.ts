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

/**
 * A recognition stream for engines that only transcribe whole utterances (Whisper, the
 * OpenAI-compatible endpoint): frames are buffered until `flush()`, then the utterance is
 * transcribed and yields one `final` (none for silence) and the `flushed` marker.
 * Utterances are transcribed one after another so events stay in audio order; the first
 * failure ends the stream with that error.
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

  constructor(
    transcribe: TranscribeUtterance,
    options: SttOptions,
    signal: AbortSignal,
    maxUtteranceMs = DEFAULT_MAX_UTTERANCE_MS,
  ) {
    this.#transcribe = transcribe;
    this.#options = { ...options };
    this.#maxUtteranceSamples = Math.round((maxUtteranceMs * STT_SAMPLE_RATE_HZ) / 1000);
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
    this.#chunks = [];
    this.#bufferedSamples = 0;
    this.#utteranceStartSample = this.#totalSamples;
    this.#chain = this.#chain
      .then(async () => {
        if (this.#queue.done) return;
        if (sampleCount > 0) {
          const samples = concatSamples(chunks, sampleCount);
          const result = await this.#transcribe(samples, this.#options, this.#signal);
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
