import type { SpeexResamplerWasm } from '@echogarden/speex-resampler-wasm';
import { MediaError } from './errors.ts';
import { int16ToPcm, PCM_BYTES_PER_SAMPLE, pcmToInt16 } from './pcm.ts';

/** Input samples copied into the WASM heap per call; larger pushes are processed in blocks. */
const BLOCK_SAMPLES = 4096;
/** Room for one block's output at the largest ratio we expect (8 kHz to 48 kHz is 6x). */
const OUT_CAPACITY_SAMPLES = BLOCK_SAMPLES * 8;

/**
 * One loaded WASM module with its scratch buffers. Every resampler state lives in the same
 * module heap, and JavaScript runs one call at a time, so the scratch buffers are shared.
 */
interface SpeexRuntime {
  readonly wasm: SpeexResamplerWasm;
  readonly inPointer: number;
  readonly outPointer: number;
  readonly inLengthPointer: number;
  readonly outLengthPointer: number;
  readonly errorPointer: number;
}

let runtimePromise: Promise<SpeexRuntime> | null = null;

/**
 * Load the SpeexDSP resampler WASM module once per process. Later calls return the same
 * module, so per-stream creation is a cheap `speex_resampler_init` (well under a millisecond).
 */
export function loadSpeexRuntime(): Promise<SpeexRuntime> {
  runtimePromise ??= instantiate().catch((error: unknown) => {
    runtimePromise = null; // let a later call retry
    throw new MediaError('resampler_failed', 'could not load the resampler WASM module', {
      cause: error,
    });
  });
  return runtimePromise;
}

async function instantiate(): Promise<SpeexRuntime> {
  let wasm: SpeexResamplerWasm;
  try {
    // The SIMD build is about twice as fast; Node 20 supports WASM SIMD.
    wasm = await (await import('@echogarden/speex-resampler-wasm/simd')).default();
  } catch {
    wasm = await (await import('@echogarden/speex-resampler-wasm')).default();
  }
  return {
    wasm,
    inPointer: wasm._malloc(BLOCK_SAMPLES * PCM_BYTES_PER_SAMPLE),
    outPointer: wasm._malloc(OUT_CAPACITY_SAMPLES * PCM_BYTES_PER_SAMPLE),
    inLengthPointer: wasm._malloc(4),
    outLengthPointer: wasm._malloc(4),
    errorPointer: wasm._malloc(4),
  };
}

// Frees the WASM-side state of a resampler that was dropped without destroy().
const leakGuard = new FinalizationRegistry<{ wasm: SpeexResamplerWasm; state: number }>(
  ({ wasm, state }) => wasm._speex_resampler_destroy(state),
);

/**
 * Streaming resampler over SpeexDSP's windowed-sinc resampler, s16le mono in and out.
 * State (filter memory and fractional phase) carries across pushes, so any chunking of
 * the input gives the same output as one big push: no clicks at chunk boundaries.
 * Output is time-aligned with the input (the filter delay is skipped) and `flush()` returns
 * the tail so the total output length is `round(inputSamples * toHz / fromHz)`.
 *
 * Create through `createResampler()` in resample.ts.
 */
export class SpeexResampler {
  readonly fromHz: number;
  readonly toHz: number;
  readonly #runtime: SpeexRuntime;
  #state: number;
  #inputSamples = 0;
  #outputSamples = 0;

  constructor(runtime: SpeexRuntime, fromHz: number, toHz: number, quality: number) {
    this.#runtime = runtime;
    this.fromHz = fromHz;
    this.toHz = toHz;
    const { wasm, errorPointer } = runtime;
    this.#state = wasm._speex_resampler_init(1, fromHz, toHz, quality, errorPointer);
    if (this.#state === 0) {
      const code = wasm.HEAPU32[errorPointer >> 2];
      throw new MediaError(
        'resampler_failed',
        `speex_resampler_init(${fromHz} -> ${toHz}, quality ${quality}) failed with ${code}`,
      );
    }
    // Without this the first output samples are the filter's warm-up (a delay of half the
    // filter length), which would shift audio against timestamps.
    wasm._speex_resampler_skip_zeros(this.#state);
    leakGuard.register(this, { wasm, state: this.#state }, this);
  }

  /** Resample `pcm` (s16le) and return what is ready; the filter keeps a few ms back. */
  push(pcm: Buffer): Buffer {
    const input = pcmToInt16(pcm);
    this.#inputSamples += input.length;
    return this.#process(input, Number.POSITIVE_INFINITY);
  }

  /**
   * Return the held-back tail and reset, so the resampler can start a new stream.
   * Feeds silence through the filter and cuts the output at the exact expected length.
   */
  flush(): Buffer {
    const expected = Math.round((this.#inputSamples * this.toHz) / this.fromHz);
    const parts: Buffer[] = [];
    const { wasm } = this.#runtime;
    const zeros = new Int16Array(wasm._speex_resampler_get_input_latency(this.#assertLive()) + 1);
    // Normally one round suffices; a few more cover fractional-phase rounding.
    for (let round = 0; round < 4 && this.#outputSamples < expected; round++) {
      parts.push(this.#process(zeros, expected - this.#outputSamples));
    }
    wasm._speex_resampler_reset_mem(this.#state);
    wasm._speex_resampler_skip_zeros(this.#state);
    this.#inputSamples = 0;
    this.#outputSamples = 0;
    return Buffer.concat(parts);
  }

  /** Free the WASM memory of this resampler. Further calls throw. */
  destroy(): void {
    if (this.#state === 0) return;
    leakGuard.unregister(this);
    this.#runtime.wasm._speex_resampler_destroy(this.#state);
    this.#state = 0;
  }

  #assertLive(): number {
    if (this.#state === 0) {
      throw new MediaError('resampler_failed', 'resampler used after destroy()');
    }
    return this.#state;
  }

  /** Run `input` through the filter, keeping at most `limit` output samples. */
  #process(input: Int16Array, limit: number): Buffer {
    const state = this.#assertLive();
    const { wasm, inPointer, outPointer, inLengthPointer, outLengthPointer } = this.#runtime;
    const outputs: Int16Array[] = [];
    let produced = 0;
    let offset = 0;
    while (offset < input.length) {
      const block = input.subarray(offset, offset + BLOCK_SAMPLES);
      // Re-read the heap views each time: a malloc elsewhere may have grown the memory.
      wasm.HEAP16.set(block, inPointer >> 1);
      wasm.HEAPU32[inLengthPointer >> 2] = block.length;
      wasm.HEAPU32[outLengthPointer >> 2] = OUT_CAPACITY_SAMPLES;
      const error = wasm._speex_resampler_process_int(
        state,
        0,
        inPointer,
        inLengthPointer,
        outPointer,
        outLengthPointer,
      );
      if (error !== 0) {
        throw new MediaError(
          'resampler_failed',
          `speex_resampler_process_int failed with ${error}`,
        );
      }
      const consumed = wasm.HEAPU32[inLengthPointer >> 2]!;
      const written = wasm.HEAPU32[outLengthPointer >> 2]!;
      const keep = Math.max(0, Math.min(written, limit - produced));
      if (keep > 0) {
        outputs.push(wasm.HEAP16.slice(outPointer >> 1, (outPointer >> 1) + keep));
        produced += keep;
      }
      offset += consumed;
      if (consumed === 0 && written === 0) break; // cannot progress; never expected
    }
    this.#outputSamples += produced;
    if (outputs.length === 1) return int16ToPcm(outputs[0]!);
    const joined = new Int16Array(produced);
    let at = 0;
    for (const part of outputs) {
      joined.set(part, at);
      at += part.length;
    }
    return int16ToPcm(joined);
  }
}
