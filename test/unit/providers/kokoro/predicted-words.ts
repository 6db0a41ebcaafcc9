import { KOKORO_SAMPLE_RATE_HZ, tokenize } from '../../../../src/tts/providers/kokoro/index.ts';
import type { KokoroProviderOptions } from '../../../../src/tts/providers/kokoro/provider.ts';

/** The model frame: the unit of the durations Kokoro predicts (600 samples at 24 kHz). */
export const FRAME_MS = 25;

type RunEvent = Parameters<NonNullable<KokoroProviderOptions['onRun']>>[0];

/**
 * Records what the model was given and predicted for each run of a request, and computes
 * from it where each IPA word starts in the request's audio: the frames the model gave
 * the tokens before the word, less the silence trimmed before the chunk's kept audio, plus
 * the audio placed before the chunk.
 */
export class PredictedWords {
  readonly #phonemes: string[] = [];
  readonly #runs: RunEvent[] = [];

  readonly hooks: Partial<KokoroProviderOptions> = {
    onPhonemes: (event) => this.#phonemes.push(event.phonemes),
    onRun: (event) => this.#runs.push(event),
  };

  reset(): void {
    this.#phonemes.length = 0;
    this.#runs.length = 0;
  }

  get chunks(): number {
    return this.#runs.length;
  }

  /** The runs of the request, in order. */
  get runs(): readonly RunEvent[] {
    return this.#runs;
  }

  /** Start in ms of each IPA word (runs of phonemes between spaces and punctuation). */
  startsMs(): number[] {
    const starts: number[] = [];
    for (const run of this.#runs) {
      const phonemes = this.#phonemes[run.index]!;
      const frames = [0];
      for (const d of run.result.durations) frames.push(frames.at(-1)! + d);
      for (const word of phonemes.matchAll(/[^\s;:,.!?¡¿—…"«»“”(){}[\]]+/gu)) {
        // tokenize frames its ids with two pads: the word's first token is at length - 1.
        const token = tokenize(phonemes.slice(0, word.index)).length - 1;
        const sample = Math.max(0, frames[token]! * 600 - run.result.trimmedSamples);
        starts.push(((run.offsetSamples + sample) / KOKORO_SAMPLE_RATE_HZ) * 1000);
      }
    }
    return starts;
  }
}
