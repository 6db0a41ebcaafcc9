import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AlignmentGranularity, SynthesisChunk, TextTiming } from '../alignment.ts';
import { ProviderError } from '../errors.ts';
import type { SynthesisRequest, TtsProvider } from '../provider.ts';
import { type ChunkingOptions, chunkText, DEFAULT_CHUNKING, type TextChunk } from './chunker.ts';
import type { InferencePool, InferenceResult } from './inference-pool.ts';
import { normalizeOtherText, normalizeText } from './normalize.ts';
import {
  kokoroIpa,
  MAX_PHONEME_TOKENS,
  type Phonemizer,
  phonemizeChunk,
  tokenize,
} from './phonemes.ts';
import type { SeamEnd } from './seams.ts';
import { KOKORO_SAMPLE_RATE_HZ, kokoroVoiceByStyle } from './voices.ts';
import { KokoroWordTimer, unitSpans } from './word-timings.ts';
import { type TokenGroup, tokenGroups, unevenUnits } from './word-tokens.ts';

/** A chunk's IPA and the token group of each of its words (when timed). */
interface PhonemizedChunk {
  readonly phonemes: string;
  readonly groups: readonly (TokenGroup | undefined)[];
}

/** A chunk without audio carrying the timings that became known with it. */
function timingsOnly(timings: readonly TextTiming[]): SynthesisChunk {
  return { data: Buffer.alloc(0), sampleRateHz: KOKORO_SAMPLE_RATE_HZ, timings };
}

/** The word timings completed by one model run whose kept audio starts at `offsetSamples`. */
function chunkTimings(
  timer: KokoroWordTimer,
  index: number,
  groups: readonly (TokenGroup | undefined)[],
  result: InferenceResult,
  offsetSamples: number,
): TextTiming[] {
  return timer.chunkDone(
    index,
    unitSpans(groups, {
      chunk: index,
      durations: result.durations,
      trimmedSamples: result.trimmedSamples,
      keptSamples: result.pcm.length,
      offsetSamples,
      sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    }),
  );
}

/** How a chunk's audio ends: the text's last chunk, a sentence, a clause, or between words. */
function seamEnd(chunk: TextChunk, last: boolean): SeamEnd {
  if (last) return 'end';
  if (chunk.end === 'sentence') return 'pause';
  return chunk.end;
}

/** Floats per style row; a voice file holds one row per phoneme count (510 rows). */
const STYLE_DIM = 256;
const STYLE_ROWS = MAX_PHONEME_TOKENS;

/** Kokoro's speed input is trained for about 0.5x..2x. */
const MIN_SPEED = 0.5;
const MAX_SPEED = 2;

/** Settings of a {@link KokoroProvider}. */
export interface KokoroProviderOptions {
  readonly pool: InferencePool;
  /** espeak-ng IPA through the native engine's process pool. */
  readonly phonemizer: Phonemizer;
  /** Folder of the `<voice>.bin` style vectors. */
  readonly voicesDir: string;
  readonly chunking?: ChunkingOptions;
  /** Diagnostic hook: each chunk's IPA as fed to the model (tests check the front end). */
  readonly onPhonemes?: (event: { text: string; phonemes: string; tokens: number }) => void;
  /**
   * Diagnostic hook: each model run of a request, with the durations the model predicted
   * and the segment sample its kept audio starts at (tests check the word timings).
   */
  readonly onRun?: (event: {
    index: number;
    tokens: readonly number[];
    result: InferenceResult;
    offsetSamples: number;
  }) => void;
}

/** The model's speed input for the public multiplier: 1 by default, clamped to 0.5..2. */
export function kokoroSpeed(speed: number | undefined): number {
  if (speed === undefined || !Number.isFinite(speed) || speed <= 0) return 1;
  return Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed));
}

/**
 * The neural native voices: Kokoro-82M (Apache-2.0) on onnxruntime-node worker threads,
 * phonemes from espeak-ng. Yields 24 kHz PCM chunk by chunk:
 *
 * - The text is normalised (kokoro-js's rules in English, misaki's elsewhere) and split
 *   into chunks (chunker.ts): the first clause alone, so first audio comes after one short
 *   model run, then chunks that grow with the text before them; each text is run once.
 * - While chunk n is on the model, chunk n+1 is phonemised.
 * - Seams (seams.ts): the silence the model makes for the leading pad is cut off; a chunk
 *   ending a sentence keeps the pause the model made after it, one ending at a clause
 *   keeps at most 200 ms of it, one ending between words keeps 80 ms of its own silence;
 *   nothing is placed between chunks.
 * - Cancellation: when `signal` aborts the iterator throws `signal.reason` at once; a
 *   queued chunk leaves the queue, a running one finishes in its worker unseen, and no
 *   further chunk starts.
 * - Saturation: a request the pool cannot start within its bound fails at once with
 *   `ProviderError('overloaded')` (public `provider_unavailable`, retryable).
 */
export class KokoroProvider implements TtsProvider {
  readonly name = 'kokoro';
  readonly nativeSampleRateHz = KOKORO_SAMPLE_RATE_HZ;
  /** Word timings come from the durations the model predicts for each phoneme token. */
  readonly alignment: readonly AlignmentGranularity[] = ['word'];
  readonly #options: KokoroProviderOptions;
  readonly #styles = new Map<string, Promise<Float32Array>>();

  constructor(options: KokoroProviderOptions) {
    this.#options = options;
  }

  async *synthesize(
    request: SynthesisRequest,
    signal: AbortSignal,
  ): AsyncGenerator<SynthesisChunk> {
    signal.throwIfAborted();
    if (request.alignment !== undefined && !this.alignment.includes(request.alignment)) {
      throw new ProviderError('rejected', `neural voices cannot align by ${request.alignment}`);
    }
    const voice = kokoroVoiceByStyle(request.providerVoiceId);
    if (!voice) {
      throw new ProviderError(
        'rejected',
        `unknown Kokoro voice ${JSON.stringify(request.providerVoiceId)}`,
      );
    }
    const english = voice.phonemeLanguage === 'en-us' || voice.phonemeLanguage === 'en-gb';
    const chunks = chunkText(
      english ? normalizeText(request.text) : normalizeOtherText(request.text),
      this.#options.chunking ?? DEFAULT_CHUNKING,
    );
    if (chunks.length === 0) return;
    const styles = await this.#style(voice.providerVoiceId);
    const speed = kokoroSpeed(request.speed);
    const timer = request.alignment === 'word' ? new KokoroWordTimer(request.text, chunks) : null;
    const phonemize = (index: number) => {
      const chunk = chunks[index];
      if (!chunk) return undefined;
      const promise = this.#phonemize(chunk.text, voice.phonemeLanguage, timer !== null, signal);
      promise.catch(() => undefined); // awaited below; never an unhandled rejection
      return promise;
    };

    let upcoming = phonemize(0);
    let started = false;
    let segmentSamples = 0;
    for (let index = 0; index < chunks.length; index++) {
      const chunk = chunks[index] as TextChunk;
      const { phonemes, groups } = (await upcoming) as PhonemizedChunk;
      signal.throwIfAborted();
      upcoming = phonemize(index + 1);
      const tokens = tokenize(phonemes);
      this.#options.onPhonemes?.({ text: chunk.text, phonemes, tokens: tokens.length - 2 });
      if (tokens.length <= 2) {
        const timings = timer?.chunkDone(index, []) ?? [];
        if (timings.length > 0) yield timingsOnly(timings);
        continue;
      }
      // kokoro-js indexing: the style row for n phoneme tokens is row n (capped).
      const row = Math.min(tokens.length - 2, STYLE_ROWS - 1);
      const style = styles.slice(row * STYLE_DIM, (row + 1) * STYLE_DIM);
      const result = await this.#options.pool.run(
        {
          tokens,
          style,
          speed,
          first: !started,
          seam: seamEnd(chunk, index === chunks.length - 1),
        },
        signal,
      );
      signal.throwIfAborted();
      this.#options.onRun?.({ index, tokens, result, offsetSamples: segmentSamples });
      const timings = timer ? chunkTimings(timer, index, groups, result, segmentSamples) : [];
      if (result.pcm.length === 0) {
        if (timings.length > 0) yield timingsOnly(timings);
        continue;
      }
      const data = Buffer.from(result.pcm.buffer, result.pcm.byteOffset, result.pcm.byteLength);
      segmentSamples += result.pcm.length;
      started = true;
      yield {
        data,
        sampleRateHz: KOKORO_SAMPLE_RATE_HZ,
        ...(timings.length > 0 ? { timings } : {}),
      };
    }
  }

  /**
   * A chunk's IPA and, for word timings, the token group of each of its words: the words
   * of a piece whose IPA joined some are phonemised once more one by one, to tell them apart.
   */
  async #phonemize(
    text: string,
    language: string,
    timed: boolean,
    signal: AbortSignal,
  ): Promise<PhonemizedChunk> {
    const { phonemizer } = this.#options;
    const phonemes = await phonemizeChunk(text, language, phonemizer, signal);
    if (!timed) return { phonemes, groups: [] };
    const uneven = unevenUnits(text, phonemes);
    const lines = uneven.length > 0 ? await phonemizer(uneven, language, signal) : [];
    const alone =
      lines.length === uneven.length ? lines.map((line) => kokoroIpa(line, language)) : [];
    return { phonemes, groups: tokenGroups(text, phonemes, alone) };
  }

  /** The voice's 510 style rows, read once per voice. */
  #style(key: string): Promise<Float32Array> {
    let style = this.#styles.get(key);
    if (!style) {
      const file = path.join(this.#options.voicesDir, `${key}.bin`);
      style = readFile(file).then(
        (bytes) => {
          if (bytes.byteLength !== STYLE_DIM * STYLE_ROWS * 4) {
            throw new ProviderError(
              'unavailable',
              `Kokoro voice file ${key}.bin has ${bytes.byteLength} bytes`,
            );
          }
          return new Float32Array(
            bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          );
        },
        (error: unknown) => {
          throw new ProviderError('unavailable', `Kokoro voice file unreadable: ${file}`, {
            cause: error,
          });
        },
      );
      style.catch(() => this.#styles.delete(key));
      this.#styles.set(key, style);
    }
    return style;
  }
}
