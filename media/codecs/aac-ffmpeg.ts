import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import {
  type AudioEncoder,
  type AudioEncoderOptions,
  abortError,
  DEFAULT_HIGH_WATER_MARK_BYTES,
} from '../encoder.ts';
import { MediaError } from '../errors.ts';
import { OutputQueue } from '../output-queue.ts';

/** AAC output here is always 44.1 kHz (`aac_44100_128`). */
export const AAC_SAMPLE_RATE_HZ = 44100;

/** Options of {@link FfmpegAacEncoder}. */
export interface FfmpegAacEncoderOptions extends AudioEncoderOptions {
  /** The ffmpeg executable; a name is looked up on PATH. Default `ffmpeg`. */
  readonly ffmpegPath?: string;
  /** Default 128000. */
  readonly bitrateBps?: number;
  /** Input and output rate. Default {@link AAC_SAMPLE_RATE_HZ}. */
  readonly sampleRateHz?: number;
}

/** How much of ffmpeg's stderr to keep for the error message. */
const STDERR_TAIL_BYTES = 2048;

/**
 * ffmpeg arguments for s16le mono in, AAC-LC in ADTS out, both over pipes. The input side
 * skips probing (the format is given) and the muxer flushes every packet, so the first
 * frames come out as soon as the encoder has them instead of after ffmpeg's default
 * buffering (about a second of audio, measured).
 */
export function ffmpegAacArgs(sampleRateHz: number, bitrateBps: number): string[] {
  return [
    ...['-hide_banner', '-nostats', '-loglevel', 'error'],
    ...['-probesize', '32', '-analyzeduration', '0', '-fflags', '+nobuffer'],
    ...['-f', 's16le', '-ar', String(sampleRateHz), '-ac', '1', '-i', 'pipe:0'],
    ...['-c:a', 'aac', '-b:a', String(bitrateBps), '-ar', String(sampleRateHz), '-ac', '1'],
    ...['-flush_packets', '1', '-f', 'adts', 'pipe:1'],
  ];
}

/**
 * AAC encoder running ffmpeg as a streaming subprocess: PCM written to its stdin, ADTS
 * frames read from its stdout as they appear. One process serves the whole stream.
 *
 * Failures are `MediaError`s: `encoder_missing` when the executable cannot be started,
 * `encoder_failed` when ffmpeg exits or is killed before `end()` completes. `abort()`
 * (or the signal) kills the process with SIGKILL.
 *
 * Backpressure runs end to end: when unread output reaches the high-water mark, stdout is
 * paused, ffmpeg blocks writing, stops reading stdin, and `write()` waits for stdin to drain.
 */
export class FfmpegAacEncoder implements AudioEncoder {
  readonly sampleRateHz: number;
  readonly output: OutputQueue;
  readonly #child: ChildProcessWithoutNullStreams | null = null;
  readonly #signal: AbortSignal | undefined;
  readonly #exited: Promise<void>;
  /** Rejects with the failure reason once the stream fails; never resolves. */
  readonly #failed: Promise<never>;
  #rejectFailed: (reason: unknown) => void = () => {};
  #state: 'open' | 'ending' | 'done' | 'failed' = 'open';
  #failure: unknown = null;
  #stderrTail = '';

  constructor(options: FfmpegAacEncoderOptions = {}) {
    this.sampleRateHz = options.sampleRateHz ?? AAC_SAMPLE_RATE_HZ;
    this.#signal = options.signal;
    this.output = new OutputQueue(options.highWaterMarkBytes ?? DEFAULT_HIGH_WATER_MARK_BYTES, () =>
      this.abort(),
    );
    this.#failed = new Promise<never>((_resolve, reject) => {
      this.#rejectFailed = reject;
    });
    this.#failed.catch(() => {}); // observed through write(), end() and output
    let markExited: () => void = () => {};
    this.#exited = new Promise((resolve) => {
      markExited = resolve;
    });
    if (this.#signal?.aborted) {
      this.abort(this.#signal.reason);
      markExited();
      return;
    }
    const ffmpegPath = options.ffmpegPath ?? 'ffmpeg';
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(ffmpegPath, ffmpegAacArgs(this.sampleRateHz, options.bitrateBps ?? 128000), {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      // Invalid path values (empty, NUL bytes) throw instead of emitting 'error'.
      this.#fail(
        new MediaError('encoder_missing', `cannot start ffmpeg at ${ffmpegPath}`, { cause: error }),
      );
      markExited();
      return;
    }
    this.#child = child;
    this.#signal?.addEventListener('abort', this.#onAbort);

    child.on('error', (error: NodeJS.ErrnoException) => {
      // 'error' without a pid means the process never started.
      const missing = child.pid === undefined;
      this.#fail(
        new MediaError(
          missing ? 'encoder_missing' : 'encoder_failed',
          missing ? `cannot start ffmpeg at ${ffmpegPath}: ${error.code}` : 'ffmpeg failed',
          { cause: error },
        ),
      );
      if (missing) markExited();
    });
    // EPIPE when ffmpeg dies while we write: the 'close' handler reports the real cause.
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk: Buffer) => {
      this.output.push(chunk);
      if (this.output.bufferedBytes >= this.output.highWaterMarkBytes) {
        child.stdout.pause();
        this.output.whenWritable().then(
          () => child.stdout.resume(),
          () => {}, // failed or consumer gone: abort handles the process
        );
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    child.on('close', (code, signal) => {
      markExited();
      this.#signal?.removeEventListener('abort', this.#onAbort);
      if (this.#state === 'ending' && code === 0) {
        this.#state = 'done';
        this.output.close();
        return;
      }
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const detail = this.#stderrTail.trim();
      this.#fail(
        new MediaError(
          'encoder_failed',
          `ffmpeg ${how} before the stream ended${detail ? `: ${detail}` : ''}`,
        ),
      );
    });
  }

  /** Process id of the ffmpeg subprocess, for diagnostics; undefined if it did not start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Resolves when the subprocess has exited (or never started). */
  get exited(): Promise<void> {
    return this.#exited;
  }

  async write(pcm: Buffer): Promise<void> {
    const child = this.#assertOpen('write');
    if (pcm.byteLength === 0 || child.stdin.write(pcm)) return;
    // The pipe is full: wait until ffmpeg has read it, or until the stream fails.
    let onDrain: () => void = () => {};
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          onDrain = resolve;
          child.stdin.once('drain', onDrain);
        }),
        this.#failed,
      ]);
    } finally {
      child.stdin.off('drain', onDrain);
    }
  }

  async end(): Promise<void> {
    const child = this.#assertOpen('end');
    this.#state = 'ending';
    child.stdin.end();
    await this.#exited;
    if (this.#failure !== null) throw this.#failure;
  }

  abort(reason: unknown = abortError()): void {
    // After a clean exit only unread output is left to discard.
    if (this.#state === 'done') this.output.fail(reason);
    else this.#fail(reason);
  }

  readonly #onAbort = (): void => this.abort(this.#signal?.reason);

  #assertOpen(operation: string): ChildProcessWithoutNullStreams {
    if (this.#failure !== null) throw this.#failure;
    if (this.#state !== 'open' || this.#child === null) {
      throw new MediaError('encoder_failed', `${operation}() called after end()`);
    }
    return this.#child;
  }

  /** Fail once: remember why, fail the output, and make sure the process is gone. */
  #fail(reason: unknown): void {
    if (this.#state === 'failed' || this.#state === 'done') return;
    this.#state = 'failed';
    this.#failure = reason;
    this.#rejectFailed(reason);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.output.fail(reason);
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * A streaming AAC (ADTS) {@link AudioEncoder} backed by an ffmpeg subprocess.
 *
 * @example
 * const encoder = createAacEncoder({ signal, ffmpegPath: '/usr/bin/ffmpeg' });
 */
export function createAacEncoder(options: FfmpegAacEncoderOptions = {}): AudioEncoder {
  return new FfmpegAacEncoder(options);
}
