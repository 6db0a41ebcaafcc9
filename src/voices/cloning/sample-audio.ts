import { spawn } from 'node:child_process';
import { ApiError, bodyTooLargeError, unsupportedMediaTypeError } from '../../errors.ts';

/** Upload limits of a voice sample. */
export const SAMPLE_LIMITS = {
  /** Largest accepted file (ElevenLabs accepts 10 MB per instant-clone file). */
  maxBytes: 10 * 1024 * 1024,
  minDurationMs: 1_000,
  maxDurationMs: 5 * 60 * 1000,
  /** Recordings below this rate lose the detail a clone needs. */
  minSampleRateHz: 16_000,
  /** RMS of the decoded speech below this (dBFS) counts as silence. */
  silenceRmsDbfs: -50,
} as const;

/** Accepted containers: content type -> file extension. */
export const SAMPLE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/webm': 'webm',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
};

/** ffmpeg's demuxer names for the accepted containers (the probe must agree with the type). */
const FORMATS_BY_EXTENSION: Readonly<Record<string, readonly string[]>> = {
  wav: ['wav'],
  mp3: ['mp3'],
  ogg: ['ogg'],
  flac: ['flac'],
  webm: ['matroska,webm', 'webm'],
  m4a: ['mov,mp4,m4a,3gp,3g2,mj2'],
};

/** What ffmpeg learned about an accepted recording. */
export interface ProbedSample {
  extension: string;
  durationMs: number;
  sampleRateHz: number;
  /** Loudness of the whole recording, dBFS. */
  rmsDbfs: number;
}

/** Rate at which samples are decoded for analysis. */
export const ANALYSIS_RATE_HZ = 16_000;

/**
 * Decodes `audio` with ffmpeg to mono 16-bit PCM at {@link ANALYSIS_RATE_HZ}. Throws
 * `invalid_request` when ffmpeg cannot decode it.
 */
export async function decodeForAnalysis(audio: Buffer): Promise<Int16Array> {
  const { stdout, code } = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-i',
      'pipe:0',
      '-ac',
      '1',
      '-ar',
      String(ANALYSIS_RATE_HZ),
      '-f',
      's16le',
      'pipe:1',
    ],
    audio,
  );
  if (code !== 0 || stdout.byteLength < 2) {
    throw new ApiError('invalid_request', 'The recording could not be decoded as audio.');
  }
  const samples = new Int16Array(stdout.byteLength >> 1);
  for (let i = 0; i < samples.length; i += 1) samples[i] = stdout.readInt16LE(i * 2);
  return samples;
}

/**
 * Checks a recording before it is accepted: type and size, then ffprobe (container must
 * match the declared type, one audio stream, rate at least 16 kHz), then a full decode
 * (duration 1 s to 5 min, not silence). Failures are `invalid_request`: 415 for a wrong type,
 * 413 for a file too large, 400 otherwise, with a reason an operator can act on.
 */
export async function validateSample(audio: Buffer, contentType: string): Promise<ProbedSample> {
  const extension = SAMPLE_CONTENT_TYPES[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  if (extension === undefined) {
    throw unsupportedMediaTypeError(
      `Recordings must be one of: ${[...new Set(Object.values(SAMPLE_CONTENT_TYPES))].join(', ')}.`,
    );
  }
  if (audio.byteLength > SAMPLE_LIMITS.maxBytes) {
    throw bodyTooLargeError(`A recording may be at most ${SAMPLE_LIMITS.maxBytes} bytes.`);
  }
  if (audio.byteLength === 0) throw new ApiError('invalid_request', 'The recording is empty.');
  const probe = await run(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', 'pipe:0'],
    audio,
  );
  let info: {
    format?: { format_name?: string };
    streams?: { codec_type?: string; sample_rate?: string }[];
  };
  try {
    info = JSON.parse(probe.stdout.toString('utf8')) as typeof info;
  } catch {
    info = {};
  }
  const stream = info.streams?.find((s) => s.codec_type === 'audio');
  if (probe.code !== 0 || stream === undefined || info.format?.format_name === undefined) {
    throw new ApiError('invalid_request', 'The recording could not be decoded as audio.');
  }
  if (!(FORMATS_BY_EXTENSION[extension] ?? []).includes(info.format.format_name)) {
    throw unsupportedMediaTypeError(
      `The file is ${info.format.format_name}, not the declared ${contentType}.`,
    );
  }
  const sampleRateHz = Number(stream.sample_rate);
  if (!Number.isFinite(sampleRateHz) || sampleRateHz < SAMPLE_LIMITS.minSampleRateHz) {
    throw new ApiError(
      'invalid_request',
      `The recording is sampled at ${stream.sample_rate ?? '?'} Hz; at least ${SAMPLE_LIMITS.minSampleRateHz} Hz is needed.`,
    );
  }
  const pcm = await decodeForAnalysis(audio);
  const durationMs = Math.round((pcm.length / ANALYSIS_RATE_HZ) * 1000);
  if (durationMs < SAMPLE_LIMITS.minDurationMs || durationMs > SAMPLE_LIMITS.maxDurationMs) {
    throw new ApiError(
      'invalid_request',
      `The recording lasts ${(durationMs / 1000).toFixed(1)} s; 1 s to 5 min is accepted.`,
    );
  }
  const rmsDbfs = rmsDecibels(pcm);
  if (rmsDbfs < SAMPLE_LIMITS.silenceRmsDbfs) {
    throw new ApiError('invalid_request', 'The recording is silent.');
  }
  return { extension, durationMs, sampleRateHz, rmsDbfs };
}

/** Root mean square of 16-bit PCM in dBFS (-Infinity for digital silence). */
export function rmsDecibels(pcm: Int16Array): number {
  let sum = 0;
  for (const value of pcm) sum += value * value;
  const rms = Math.sqrt(sum / Math.max(1, pcm.length)) / 32768;
  return 20 * Math.log10(rms);
}

function run(
  command: string,
  args: string[],
  input: Buffer,
): Promise<{ stdout: Buffer; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    // ffprobe may stop reading early; a closed pipe is not an error here.
    child.stdin.on('error', () => {});
    child.on('close', (code) => resolve({ stdout: Buffer.concat(chunks), code }));
    child.stdin.end(input);
  });
}
