/**
 * A long-lived streaming encoder: 16-bit mono PCM in at {@link AudioEncoder.sampleRateHz},
 * encoded bytes out. One encoder makes one output stream across any number of writes, so a
 * request that synthesizes several text segments produces a single decodable stream.
 *
 * Backpressure: `write()` resolves once the encoder can take more, which is when the
 * unread output is below the high-water mark (and, for subprocess encoders, the pipe has
 * drained). Await every `write()` and read `output` concurrently.
 *
 * Cancellation: `abort()` or the `signal` option stops at once, kills subprocesses, and
 * makes `output`, pending `write()` and `end()` reject with the abort reason. Breaking out
 * of a `for await` over `output` aborts too.
 *
 * @example
 * const encoder = getOutputFormatInfo('opus_48000_64').createEncoder({ signal });
 * const sending = (async () => { for await (const bytes of encoder.output) ws.send(bytes); })();
 * for await (const pcm48k of segments) await encoder.write(pcm48k);
 * await encoder.end();
 * await sending;
 */
export interface AudioEncoder {
  /** Sample rate `write()` expects. */
  readonly sampleRateHz: number;
  /** Encode more PCM. Rejects once the encoder failed or was aborted. */
  write(pcm: Buffer): Promise<void>;
  /** Finish the stream (final frames, end-of-stream marks); resolves when all output is queued. */
  end(): Promise<void>;
  /** Stop now, discarding queued output. Safe to call repeatedly and after `end()`. */
  abort(reason?: unknown): void;
  /** Encoded bytes in order, each chunk emitted as soon as the codec produced it. */
  readonly output: AsyncIterable<Buffer>;
}

/** Options every encoder factory accepts. */
export interface AudioEncoderOptions {
  /** Aborts the encoder (see {@link AudioEncoder.abort}). */
  readonly signal?: AbortSignal;
  /** Unread output bytes at which `write()` starts waiting. Default {@link DEFAULT_HIGH_WATER_MARK_BYTES}. */
  readonly highWaterMarkBytes?: number;
}

/**
 * Default output high-water mark: 0.7 s of 48 kHz PCM, 8 s of 64 kbps Opus. Enough to keep a
 * network write in flight without letting a stalled client grow memory.
 */
export const DEFAULT_HIGH_WATER_MARK_BYTES = 64 * 1024;

/** The error an abort without a reason carries, like `AbortSignal.abort()` makes. */
export function abortError(): DOMException {
  return new DOMException('This operation was aborted', 'AbortError');
}
