import { type AudioEncoder, abortError } from './encoder.ts';
import { type EncoderFactoryOptions, getOutputFormatInfo, type OutputFormat } from './formats.ts';
import type { PcmChunk } from './pcm.ts';
import { createResampler, type Resampler, type ResamplerOptions } from './resample.ts';

/** Options of {@link AudioTranscoder} and {@link encodeAudio}. */
export interface TranscoderOptions extends EncoderFactoryOptions {
  readonly resampler?: ResamplerOptions;
}

/**
 * PCM in, one output format out, as one stream: {@link AudioTranscoder} in this thread, or
 * one running on a worker thread (./worker/transcode-pool.ts).
 */
export interface Transcoder {
  readonly format: OutputFormat;
  /** Encoded bytes, emitted as soon as the encoder produces them. */
  readonly output: AsyncIterable<Buffer>;
  /** Resample and encode `chunk`; resolves when the transcoder can take more. */
  write(chunk: PcmChunk): Promise<void>;
  /** Flush and finish the encoded stream. */
  end(): Promise<void>;
  /** Stop at once; the output rejects with `reason`. */
  abort(reason?: unknown): void;
}

/** Makes transcoders; the default makes {@link AudioTranscoder}s in this thread. */
export type TranscoderFactory = (format: OutputFormat, options: TranscoderOptions) => Transcoder;

export const inThreadTranscoder: TranscoderFactory = (format, options) =>
  new AudioTranscoder(format, options);

/**
 * PCM at any rate in, one output format out: resamples to the format's rate and encodes,
 * as one long stream. Chunks may come from several segments and even change rate (the
 * resampler is flushed and replaced), and the output stays a single decodable stream.
 *
 * Writes are queued in order, so callers may fire them without awaiting, but awaiting is
 * what gives backpressure. Read `output` concurrently.
 *
 * @example
 * const transcoder = new AudioTranscoder('opus_48000_64', { signal });
 * const sending = (async () => { for await (const bytes of transcoder.output) ws.send(bytes); })();
 * for (const segment of segments) for await (const chunk of synthesize(segment)) await transcoder.write(chunk);
 * await transcoder.end();
 * await sending;
 */
export class AudioTranscoder implements Transcoder {
  readonly format: OutputFormat;
  readonly output: AsyncIterable<Buffer>;
  readonly #encoderOptions: EncoderFactoryOptions;
  readonly #resamplerOptions: ResamplerOptions;
  readonly #signal: AbortSignal | undefined;
  /** Created on the first write, when the source rate is known (Opus picks its input rate). */
  #encoder: AudioEncoder | null = null;
  readonly #encoderReady: Promise<AudioEncoder>;
  #settleEncoder: { resolve: (e: AudioEncoder) => void; reject: (r: unknown) => void } | null =
    null;
  #resampler: Resampler | null = null;
  /** Set by abort(); a step that finds it set stops with this reason. */
  #abortReason: { readonly reason: unknown } | null = null;
  /** The chain that keeps writes, rate switches and end in order. */
  #queue: Promise<void> = Promise.resolve();

  constructor(format: OutputFormat, options: TranscoderOptions = {}) {
    this.format = format;
    const { resampler, ...encoderOptions } = options;
    this.#encoderOptions = encoderOptions;
    this.#resamplerOptions = resampler ?? {};
    this.#encoderReady = new Promise((resolve, reject) => {
      this.#settleEncoder = { resolve, reject };
    });
    // Read only through `output`; an abort before the first write must not go unhandled.
    this.#encoderReady.catch(() => {});
    this.output = this.#readOutput();
    // The encoder watches the signal too; this frees the resampler at the same moment.
    this.#signal = options.signal;
    if (this.#signal?.aborted) this.abort(this.#signal.reason);
    else this.#signal?.addEventListener('abort', this.#onAbort);
  }

  /** Resample and encode `chunk`; resolves when the encoder can take more. */
  write(chunk: PcmChunk): Promise<void> {
    return this.#enqueue(async () => {
      this.#throwIfAborted();
      const encoder = this.#encoderFor(chunk.sampleRateHz);
      const resampler = await this.#resamplerFor(chunk.sampleRateHz, encoder);
      this.#throwIfAborted();
      const pcm = resampler.push(chunk.data);
      if (pcm.byteLength > 0) await encoder.write(pcm);
    });
  }

  /** Flush the resampler and finish the encoded stream. */
  end(): Promise<void> {
    return this.#enqueue(async () => {
      this.#throwIfAborted();
      const encoder = this.#encoderFor(undefined);
      await this.#retireResampler(encoder);
      await encoder.end();
      this.#signal?.removeEventListener('abort', this.#onAbort);
    });
  }

  /** Stop at once; the output rejects with `reason`. */
  abort(reason: unknown = abortError()): void {
    this.#abortReason ??= { reason };
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (this.#encoder) this.#encoder.abort(reason);
    else this.#settleEncoder?.reject(reason);
    this.#settleEncoder = null;
    this.#resampler?.destroy();
    this.#resampler = null;
  }

  readonly #onAbort = (): void => this.abort(this.#signal?.reason);

  #throwIfAborted(): void {
    if (this.#abortReason) throw this.#abortReason.reason;
  }

  #enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(step);
    // A failed step fails the encoder; later steps then fail on their own.
    this.#queue = run.catch(() => {});
    return run;
  }

  async *#readOutput(): AsyncIterable<Buffer> {
    const encoder = await this.#encoderReady;
    yield* encoder.output;
  }

  /** The encoder, created for `sourceRateHz` on first use. */
  #encoderFor(sourceRateHz: number | undefined): AudioEncoder {
    if (this.#encoder) return this.#encoder;
    try {
      this.#encoder = getOutputFormatInfo(this.format).createEncoder({
        ...this.#encoderOptions,
        ...(sourceRateHz === undefined ? {} : { sourceSampleRateHz: sourceRateHz }),
      });
    } catch (error) {
      this.abort(error);
      throw error;
    }
    this.#settleEncoder?.resolve(this.#encoder);
    this.#settleEncoder = null;
    return this.#encoder;
  }

  async #resamplerFor(sampleRateHz: number, encoder: AudioEncoder): Promise<Resampler> {
    if (this.#resampler?.fromHz === sampleRateHz) return this.#resampler;
    await this.#retireResampler(encoder);
    const resampler = await createResampler(
      sampleRateHz,
      encoder.sampleRateHz,
      this.#resamplerOptions,
    );
    if (this.#abortReason) {
      // Aborted while the resampler was being created: nothing else would free it.
      resampler.destroy();
      this.#throwIfAborted();
    }
    this.#resampler = resampler;
    return resampler;
  }

  /** Send the old resampler's tail to the encoder and free it. */
  async #retireResampler(encoder: AudioEncoder): Promise<void> {
    const resampler = this.#resampler;
    if (!resampler) return;
    this.#resampler = null;
    try {
      const tail = resampler.flush();
      if (tail.byteLength > 0) await encoder.write(tail);
    } finally {
      resampler.destroy();
    }
  }
}

/**
 * Resample and encode a PCM stream into `format`, yielding encoded bytes as soon as the
 * encoder emits them. Reading is what pulls: a slow consumer slows the source down
 * (bounded buffering). Aborting `signal` stops everything, kills encoder subprocesses,
 * and makes the iteration throw the abort reason; an error from `source` is rethrown as is.
 * Breaking out of the loop stops the encoder at once; the source is closed when its
 * pending chunk arrives.
 *
 * @example
 * for await (const bytes of encodeAudio(provider.synthesize(text), 'aac_44100_128', signal)) {
 *   res.write(bytes);
 * }
 */
export async function* encodeAudio(
  source: AsyncIterable<PcmChunk>,
  format: OutputFormat,
  signal: AbortSignal,
  options: Omit<TranscoderOptions, 'signal'> & { readonly transcoders?: TranscoderFactory } = {},
): AsyncIterable<Buffer> {
  const { transcoders = inThreadTranscoder, ...transcoderOptions } = options;
  const transcoder = transcoders(format, { ...transcoderOptions, signal });
  let stopped = false;
  // Never rejects: every failure ends up on the transcoder's output.
  void (async () => {
    try {
      for await (const chunk of source) {
        if (stopped) return;
        await transcoder.write(chunk);
      }
      await transcoder.end();
    } catch (error) {
      // The encoder's own failures are already on its output; this adds source errors.
      transcoder.abort(error);
    }
  })();
  try {
    yield* transcoder.output;
  } finally {
    stopped = true;
    transcoder.abort();
  }
}
