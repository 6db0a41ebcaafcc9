import { abortError } from './encoder.ts';
import { getOutputFormatInfo } from './formats.ts';
import type { PcmChunk } from './pcm.ts';
import { inThreadTranscoder, type Transcoder, type TranscoderFactory } from './transcode.ts';

/**
 * Transcoders that choose where they run at their first chunk: PCM that already has the
 * format's rate needs neither resampling nor encoding, so it passes through in this thread
 * (no message to a worker thread and back); anything else runs on `elsewhere` (for the
 * service, the pool of transcoding threads). A stream whose rate changes later is still
 * resampled, in the thread it started on.
 *
 * @example
 * const transcoders = passPcmThroughInThread((format, options) => pool.create(format, options));
 */
export function passPcmThroughInThread(elsewhere: TranscoderFactory): TranscoderFactory {
  return (format, options) => {
    const info = getOutputFormatInfo(format);
    if (info.codec !== 'pcm') return elsewhere(format, options);
    return new PlacedTranscoder(format, (chunk) =>
      chunk === undefined || chunk.sampleRateHz === info.sampleRateHz
        ? inThreadTranscoder(format, options)
        : elsewhere(format, options),
    );
  };
}

/** A transcoder made on first use by `choose`, with what came before forwarded to it. */
class PlacedTranscoder implements Transcoder {
  readonly output: AsyncIterable<Buffer>;
  #inner: Transcoder | undefined;
  #aborted: { reason: unknown } | undefined;
  #settle: { resolve(inner: Transcoder): void; reject(reason: unknown): void } | undefined;

  constructor(
    readonly format: Transcoder['format'],
    private readonly choose: (first: PcmChunk | undefined) => Transcoder,
  ) {
    const chosen = new Promise<Transcoder>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Read only through `output`; an abort before the first write must not go unhandled.
    chosen.catch(() => {});
    this.output = (async function* () {
      yield* (await chosen).output;
    })();
  }

  async write(chunk: PcmChunk): Promise<void> {
    await this.#place(chunk).write(chunk);
  }

  async end(): Promise<void> {
    await this.#place(undefined).end();
  }

  abort(reason: unknown = abortError()): void {
    if (this.#inner !== undefined) {
      this.#inner.abort(reason);
      return;
    }
    this.#aborted ??= { reason };
    this.#settle?.reject(reason);
    this.#settle = undefined;
  }

  #place(first: PcmChunk | undefined): Transcoder {
    if (this.#aborted !== undefined) throw this.#aborted.reason;
    if (this.#inner === undefined) {
      this.#inner = this.choose(first);
      this.#settle?.resolve(this.#inner);
      this.#settle = undefined;
    }
    return this.#inner;
  }
}
