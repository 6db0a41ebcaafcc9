import { spawn } from 'node:child_process';
import type { PcmChunk } from '../../media/pcm.ts';
import { parsePcmWav } from '../../media/wav.ts';

/** Output of a finished subprocess. */
export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Run `command` with `input` on stdin and collect its output. Rejects if it cannot start. */
export function runProcess(
  command: string,
  args: string[],
  input?: Buffer,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => {}); // a decoder may exit before reading everything
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

/** Real speech from espeak-ng: 22,050 Hz mono 16-bit PCM. */
export async function espeakPcm(text: string): Promise<PcmChunk> {
  const result = await runProcess('espeak-ng', ['--stdout', text]);
  if (result.code !== 0) throw new Error(`espeak-ng failed: ${result.stderr}`);
  return parsePcmWav(result.stdout);
}

/** Stream facts as ffprobe reports them for encoded bytes given on stdin. */
export interface ProbedStream {
  readonly codecName: string;
  readonly sampleRateHz: number;
  readonly channels: number;
  readonly formatName: string;
  readonly stderr: string;
}

/** Probe encoded audio with ffprobe (first audio stream). */
export async function ffprobeAudio(encoded: Buffer): Promise<ProbedStream> {
  const result = await runProcess(
    'ffprobe',
    ['-v', 'warning', '-show_streams', '-show_format', '-of', 'json', '-i', 'pipe:0'],
    encoded,
  );
  if (result.code !== 0) throw new Error(`ffprobe failed: ${result.stderr}`);
  const parsed = JSON.parse(result.stdout.toString('utf8')) as {
    streams: Array<{
      codec_type: string;
      codec_name: string;
      sample_rate: string;
      channels: number;
    }>;
    format: { format_name: string };
  };
  const stream = parsed.streams.find((s) => s.codec_type === 'audio');
  if (!stream) throw new Error('ffprobe found no audio stream');
  return {
    codecName: stream.codec_name,
    sampleRateHz: Number(stream.sample_rate),
    channels: stream.channels,
    formatName: parsed.format.format_name,
    stderr: result.stderr,
  };
}

/** Decoded audio from ffmpeg, at the stream's own rate and channel count. */
export interface FfmpegDecoded {
  /** s16le, interleaved when channels > 1. */
  readonly pcm: Buffer;
  readonly sampleRateHz: number;
  readonly channels: number;
  /** Warnings and errors ffmpeg printed (CRC mismatches, corrupt frames...). */
  readonly stderr: string;
}

/**
 * Decode encoded audio with ffmpeg to s16le without changing rate or channels, so the
 * test sees what a player would. `inputFormat` forces the demuxer (e.g. `ogg`, `aac`).
 */
export async function decodeWithFfmpeg(
  encoded: Buffer,
  inputFormat?: string,
): Promise<FfmpegDecoded> {
  const probe = await ffprobeAudio(encoded);
  const result = await runProcess(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostdin', '-v', 'warning'],
      ...(inputFormat ? ['-f', inputFormat] : []),
      ...['-i', 'pipe:0', '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'],
    ],
    encoded,
  );
  if (result.code !== 0) throw new Error(`ffmpeg decode failed: ${result.stderr}`);
  return {
    pcm: result.stdout,
    sampleRateHz: probe.sampleRateHz,
    channels: probe.channels,
    stderr: (probe.stderr + result.stderr).trim(),
  };
}

/** RMS of float samples relative to full scale. */
export function floatRms(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const value of samples) sum += value * value;
  return Math.sqrt(sum / samples.length);
}

/** Collect an async iterable of buffers, keeping each chunk. */
export async function collectChunks(source: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
}

/**
 * Split PCM into chunks of varying odd-looking sizes (whole samples), deterministic for
 * a given seed, to exercise state kept across chunk boundaries.
 */
export function splitPcm(pcm: PcmChunk, seed = 1, maxSamples = 3000): PcmChunk[] {
  const chunks: PcmChunk[] = [];
  let state = seed;
  let offset = 0;
  while (offset < pcm.data.byteLength) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const samples = 1 + (state % maxSamples);
    const end = Math.min(pcm.data.byteLength, offset + samples * 2);
    chunks.push({ data: pcm.data.subarray(offset, end), sampleRateHz: pcm.sampleRateHz });
    offset = end;
  }
  return chunks;
}

/** An async iterable over `chunks`, yielding between each to mimic a live source. */
export async function* asyncChunks<T>(chunks: Iterable<T>): AsyncIterable<T> {
  for (const chunk of chunks) {
    await new Promise((resolve) => setImmediate(resolve));
    yield chunk;
  }
}

/** Whether a process with `pid` still exists (zombies included). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A linear sine sweep from `f0Hz` to `f1Hz`, sampled at `rateHz`. */
export function sineSweep(
  rateHz: number,
  seconds: number,
  f0Hz: number,
  f1Hz: number,
): Float32Array {
  const out = new Float32Array(Math.round(rateHz * seconds));
  const slope = (f1Hz - f0Hz) / seconds;
  for (let i = 0; i < out.length; i++) {
    const t = i / rateHz;
    out[i] = 0.5 * Math.sin(2 * Math.PI * (f0Hz * t + 0.5 * slope * t * t));
  }
  return out;
}

/** SNR of `actual` against `expected`, skipping `edge` samples at both ends. */
export function snrDb(expected: Float32Array, actual: Float32Array, edge: number): number {
  let signal = 0;
  let noise = 0;
  const end = Math.min(expected.length, actual.length) - edge;
  for (let i = edge; i < end; i++) {
    signal += expected[i]! ** 2;
    noise += (expected[i]! - actual[i]!) ** 2;
  }
  return 10 * Math.log10(signal / noise);
}
