import { ApiError } from '../../errors.ts';
import { type BoundedRunResult, runBounded } from './bounded-process.ts';

/** Rate at which samples are decoded for analysis. */
export const ANALYSIS_RATE_HZ = 16_000;
const BYTES_PER_ANALYSIS_SAMPLE = 2;
/** ffprobe's JSON for one file is a few kilobytes; more is not a recording. */
const MAX_PROBE_OUTPUT_BYTES = 256 * 1024;

export interface SampleDecodeLimits {
  /** Decoder processes (ffprobe, ffmpeg) running at once; more calls wait their turn. */
  concurrency: number;
  /** Wall-clock limit of one decoder process; past it the process is killed. */
  timeoutMs: number;
}

export const DEFAULT_SAMPLE_DECODE_LIMITS: SampleDecodeLimits = {
  concurrency: 2,
  timeoutMs: 20_000,
};

/** What ffprobe says about a recording. */
export interface ProbedAudio {
  formatName: string;
  /** Of the first audio stream, as ffprobe printed it. */
  sampleRate: string | undefined;
  /** From the container's header; null when it does not say (a stream, a live recording). */
  durationMs: number | null;
}

/** Duration and loudness of a decode, measured as the audio streamed by. */
export interface MeasuredAudio {
  durationMs: number;
  /** Loudness of the whole recording, dBFS (-Infinity for digital silence). */
  rmsDbfs: number;
}

const UNDECODABLE = 'The recording could not be decoded as audio.';

/**
 * Runs ffprobe and ffmpeg on uploaded recordings within bounds: at most `concurrency` at
 * once, each killed past `timeoutMs`, ffmpeg told to stop after `maxDurationMs` (plus a
 * second, to tell "too long" from "exactly the limit") and killed past the bytes that
 * duration decodes to. Loudness is summed piece by piece as ffmpeg writes, so checking a
 * recording keeps no decoded audio and no loop ever runs over a whole recording at once.
 */
export class SampleDecoder {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limits: SampleDecodeLimits = DEFAULT_SAMPLE_DECODE_LIMITS) {}

  /** Container, rate and declared duration; `invalid_request` when ffprobe finds no audio. */
  probe(audio: Buffer): Promise<ProbedAudio> {
    return this.#withSlot(async () => {
      const result = await runBounded(
        'ffprobe',
        ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', 'pipe:0'],
        audio,
        { maxOutputBytes: MAX_PROBE_OUTPUT_BYTES, timeoutMs: this.limits.timeoutMs },
      );
      return parseProbe(result);
    });
  }

  /** Decodes at most `maxDurationMs` (and a second) and measures it without keeping it. */
  measure(audio: Buffer, maxDurationMs: number): Promise<MeasuredAudio> {
    return this.#withSlot(async () => {
      let sumOfSquares = 0;
      let samples = 0;
      let carry: Buffer | null = null;
      const result = await this.#decode(audio, maxDurationMs, false, (piece) => {
        const chunk = carry ? Buffer.concat([carry, piece]) : piece;
        const whole = chunk.byteLength - (chunk.byteLength % BYTES_PER_ANALYSIS_SAMPLE);
        for (let offset = 0; offset < whole; offset += BYTES_PER_ANALYSIS_SAMPLE) {
          const value = chunk.readInt16LE(offset);
          sumOfSquares += value * value;
        }
        samples += whole / BYTES_PER_ANALYSIS_SAMPLE;
        carry = whole < chunk.byteLength ? chunk.subarray(whole) : null;
      });
      this.#requireDecoded(result, samples);
      const rms = Math.sqrt(sumOfSquares / samples) / 32768;
      return {
        durationMs: Math.round((samples / ANALYSIS_RATE_HZ) * 1000),
        rmsDbfs: 20 * Math.log10(rms),
      };
    });
  }

  /** Mono 16-bit PCM at {@link ANALYSIS_RATE_HZ}, at most `maxDurationMs` (and a second). */
  pcm(audio: Buffer, maxDurationMs: number): Promise<Int16Array> {
    return this.#withSlot(async () => {
      const result = await this.#decode(audio, maxDurationMs, true);
      const samples = result.stdout.byteLength >> 1;
      this.#requireDecoded(result, samples);
      // One copy into aligned memory, no per-sample loop (PCM and the host are little-endian).
      const pcm = new Int16Array(samples);
      Buffer.from(pcm.buffer).set(result.stdout.subarray(0, samples * BYTES_PER_ANALYSIS_SAMPLE));
      return pcm;
    });
  }

  #decode(
    audio: Buffer,
    maxDurationMs: number,
    collect: boolean,
    onOutput?: (chunk: Buffer) => void,
  ): Promise<BoundedRunResult> {
    const capSeconds = maxDurationMs / 1000 + 1;
    const maxOutputBytes = Math.ceil(capSeconds * ANALYSIS_RATE_HZ) * BYTES_PER_ANALYSIS_SAMPLE;
    return runBounded(
      'ffmpeg',
      [
        '-v',
        'error',
        '-i',
        'pipe:0',
        '-t',
        String(capSeconds),
        '-ac',
        '1',
        '-ar',
        String(ANALYSIS_RATE_HZ),
        '-f',
        's16le',
        'pipe:1',
      ],
      audio,
      {
        maxOutputBytes,
        timeoutMs: this.limits.timeoutMs,
        collect,
        ...(onOutput ? { onOutput } : {}),
      },
    );
  }

  #requireDecoded(result: BoundedRunResult, samples: number): void {
    if (result.outcome === 'timed_out') {
      throw new ApiError(
        'invalid_request',
        `The recording could not be decoded within ${this.limits.timeoutMs / 1000} s.`,
      );
    }
    // Past the output bound the recording is longer than any accepted one: the caller's
    // duration check answers it.
    if (result.outcome === 'exited' && (result.code !== 0 || samples < 1)) {
      throw new ApiError('invalid_request', UNDECODABLE);
    }
  }

  async #withSlot<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limits.concurrency) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter; it is freed only when none waits.
      if (next) next();
      else this.#running -= 1;
    }
  }
}

function parseProbe(result: BoundedRunResult): ProbedAudio {
  if (result.outcome === 'timed_out' || result.outcome === 'output_limit' || result.code !== 0) {
    throw new ApiError('invalid_request', UNDECODABLE);
  }
  let info: {
    format?: { format_name?: string; duration?: string };
    streams?: { codec_type?: string; sample_rate?: string; duration?: string }[];
  };
  try {
    info = JSON.parse(result.stdout.toString('utf8')) as typeof info;
  } catch {
    info = {};
  }
  const stream = info.streams?.find((s) => s.codec_type === 'audio');
  const formatName = info.format?.format_name;
  if (stream === undefined || formatName === undefined) {
    throw new ApiError('invalid_request', UNDECODABLE);
  }
  const seconds = Number(info.format?.duration ?? stream.duration);
  return {
    formatName,
    sampleRate: stream.sample_rate,
    durationMs: Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null,
  };
}
