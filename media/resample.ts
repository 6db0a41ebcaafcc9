import { MediaError } from './errors.ts';
import { polyphaseBank } from './polyphase-filter.ts';
import { loadPolyphaseRuntime, PolyphaseResampler } from './polyphase-resampler.ts';
import { loadSpeexRuntime, SpeexResampler } from './speex-resampler.ts';

/**
 * A streaming sample-rate converter for s16le mono PCM. It keeps filter state between
 * pushes, so audio split into chunks anywhere resamples exactly as one piece.
 *
 * @example
 * const resampler = await createResampler(22050, 48000);
 * for await (const chunk of source) send(resampler.push(chunk.data));
 * send(resampler.flush());
 * resampler.destroy();
 */
export interface Resampler {
  readonly fromHz: number;
  readonly toHz: number;
  /** Resample `pcm` and return the output that is ready now (possibly empty). */
  push(pcm: Buffer): Buffer;
  /** Return the held-back tail of the stream and reset for a new stream. */
  flush(): Buffer;
  /** Release native or WASM memory. The resampler is unusable afterwards. */
  destroy(): void;
}

/** Options of {@link createResampler}. */
export interface ResamplerOptions {
  /**
   * SpeexDSP quality, 0 (fastest) to 10 (best). Setting it selects the Speex resampler;
   * unset, the polyphase resampler serves every ratio it has a filter bank for (all the
   * service's rates) and Speex at {@link DEFAULT_RESAMPLER_QUALITY} the rest. Quality 7
   * keeps a sine sweep up to 90% of the lower Nyquist frequency at about 89 dB SNR (the
   * 16-bit floor); 6 and below drop under 65 dB near the band edge.
   */
  readonly quality?: number;
}

/** Quality used when {@link ResamplerOptions.quality} is not set. */
export const DEFAULT_RESAMPLER_QUALITY = 7;

/** Lowest and highest rates we accept; anything outside is a bug upstream. */
const MIN_RATE_HZ = 1000;
const MAX_RATE_HZ = 384000;

/**
 * Create a streaming resampler from `fromHz` to `toHz`. Equal rates give a pass-through
 * that returns its input unchanged. Other rates get the polyphase resampler (a fixed
 * Kaiser-windowed-sinc bank per ratio, passband to 90% and stopband from 100% of the lower
 * Nyquist frequency at 70 dB; several times cheaper than Speex), or Speex when
 * `options.quality` is set or the ratio needs too large a bank. The first call of each kind
 * loads its WASM module and each new ratio designs its bank (a few ms); later calls are
 * synchronous in effect.
 *
 * @throws MediaError kind `resampler_failed` for unsupported rates or quality.
 */
export async function createResampler(
  fromHz: number,
  toHz: number,
  options: ResamplerOptions = {},
): Promise<Resampler> {
  for (const rate of [fromHz, toHz]) {
    if (!Number.isInteger(rate) || rate < MIN_RATE_HZ || rate > MAX_RATE_HZ) {
      throw new MediaError('resampler_failed', `unsupported sample rate ${rate} Hz`);
    }
  }
  const quality = options.quality ?? DEFAULT_RESAMPLER_QUALITY;
  if (!Number.isInteger(quality) || quality < 0 || quality > 10) {
    throw new MediaError('resampler_failed', `resampler quality must be 0..10, got ${quality}`);
  }
  if (fromHz === toHz) return new PassThroughResampler(fromHz);
  if (options.quality === undefined) {
    const bank = polyphaseBank(fromHz, toHz);
    const runtime = bank ? await loadPolyphaseRuntime() : null;
    if (bank && runtime) return new PolyphaseResampler(runtime, fromHz, toHz, bank);
  }
  return new SpeexResampler(await loadSpeexRuntime(), fromHz, toHz, quality);
}

/** The resampler for equal rates: returns input as is and holds nothing back. */
export class PassThroughResampler implements Resampler {
  readonly fromHz: number;
  readonly toHz: number;

  constructor(rateHz: number) {
    this.fromHz = rateHz;
    this.toHz = rateHz;
  }

  push(pcm: Buffer): Buffer {
    return pcm;
  }

  flush(): Buffer {
    return Buffer.alloc(0);
  }

  destroy(): void {}
}
