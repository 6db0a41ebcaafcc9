import {
  type AudioEncoder,
  type AudioEncoderOptions,
  abortError,
  DEFAULT_HIGH_WATER_MARK_BYTES,
} from './encoder.ts';
import { MediaError } from './errors.ts';
import { OutputQueue } from './output-queue.ts';

/**
 * An in-process codec that turns PCM into bytes synchronously: each call returns what it
 * can emit now. The Opus/Ogg encoder and the PCM pass-through have this shape.
 */
export interface SyncCodec {
  push(pcm: Buffer): Buffer;
  end(): Buffer;
}

/**
 * Runs a {@link SyncCodec} behind the {@link AudioEncoder} interface: output goes through
 * a bounded queue, `write()` waits while the consumer lags, and abort stops everything.
 */
export class SyncAudioEncoder implements AudioEncoder {
  readonly sampleRateHz: number;
  readonly output: OutputQueue;
  readonly #codec: SyncCodec;
  readonly #signal: AbortSignal | undefined;
  #state: 'open' | 'ended' | 'aborted' = 'open';

  constructor(codec: SyncCodec, sampleRateHz: number, options: AudioEncoderOptions = {}) {
    this.#codec = codec;
    this.sampleRateHz = sampleRateHz;
    this.output = new OutputQueue(options.highWaterMarkBytes ?? DEFAULT_HIGH_WATER_MARK_BYTES, () =>
      this.abort(),
    );
    this.#signal = options.signal;
    if (this.#signal?.aborted) this.abort(this.#signal.reason);
    else this.#signal?.addEventListener('abort', this.#onAbort);
  }

  async write(pcm: Buffer): Promise<void> {
    if (this.#state !== 'open') return this.#rejectClosed('write');
    this.#run(() => this.#codec.push(pcm));
    await this.output.whenWritable();
  }

  async end(): Promise<void> {
    if (this.#state !== 'open') return this.#rejectClosed('end');
    this.#run(() => this.#codec.end());
    this.#state = 'ended';
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.output.close();
  }

  abort(reason: unknown = abortError()): void {
    if (this.#state === 'aborted') return;
    this.#state = 'aborted';
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.output.fail(reason);
  }

  readonly #onAbort = (): void => this.abort(this.#signal?.reason);

  /** Run the codec; a codec error fails the whole stream, as a dead subprocess would. */
  #run(step: () => Buffer): void {
    try {
      this.output.push(step());
    } catch (error) {
      this.abort(error);
      throw error;
    }
  }

  async #rejectClosed(operation: string): Promise<never> {
    // After abort, every call reports the same reason the output does.
    await this.output.whenWritable();
    throw new MediaError('encoder_failed', `${operation}() called after end()`);
  }
}
