import { ApiError, bodyTooLargeError, unsupportedMediaTypeError } from '../../errors.ts';
import { ANALYSIS_RATE_HZ, SampleDecoder } from './sample-decoder.ts';

export { ANALYSIS_RATE_HZ };

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

const defaultDecoder = new SampleDecoder();

/**
 * Decodes `audio` with ffmpeg to mono 16-bit PCM at {@link ANALYSIS_RATE_HZ}, at most the
 * longest accepted recording (and a second). Throws `invalid_request` when ffmpeg cannot
 * decode it.
 */
export function decodeForAnalysis(
  audio: Buffer,
  decoder: SampleDecoder = defaultDecoder,
): Promise<Int16Array> {
  return decoder.pcm(audio, SAMPLE_LIMITS.maxDurationMs);
}

function durationRefusal(durationMs: number): ApiError {
  return new ApiError(
    'invalid_request',
    `The recording lasts ${(durationMs / 1000).toFixed(1)} s; 1 s to 5 min is accepted.`,
  );
}

/**
 * Checks a recording before it is accepted: type and size, then ffprobe (container must
 * match the declared type, one audio stream, rate at least 16 kHz, a declared duration of at
 * most 5 min), then a bounded decode (duration 1 s to 5 min, not silence). Failures are
 * `invalid_request`: 415 for a wrong type, 413 for a file too large, 400 otherwise, with a
 * reason an operator can act on.
 */
export async function validateSample(
  audio: Buffer,
  contentType: string,
  decoder: SampleDecoder = defaultDecoder,
): Promise<ProbedSample> {
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
  const probe = await decoder.probe(audio);
  if (!(FORMATS_BY_EXTENSION[extension] ?? []).includes(probe.formatName)) {
    throw unsupportedMediaTypeError(
      `The file is ${probe.formatName}, not the declared ${contentType}.`,
    );
  }
  const sampleRateHz = Number(probe.sampleRate);
  if (!Number.isFinite(sampleRateHz) || sampleRateHz < SAMPLE_LIMITS.minSampleRateHz) {
    throw new ApiError(
      'invalid_request',
      `The recording is sampled at ${probe.sampleRate ?? '?'} Hz; at least ${SAMPLE_LIMITS.minSampleRateHz} Hz is needed.`,
    );
  }
  // A header that declares too long a recording is refused before anything is decoded.
  if (probe.durationMs !== null && probe.durationMs > SAMPLE_LIMITS.maxDurationMs) {
    throw durationRefusal(probe.durationMs);
  }
  const measured = await decoder.measure(audio, SAMPLE_LIMITS.maxDurationMs);
  if (
    measured.durationMs < SAMPLE_LIMITS.minDurationMs ||
    measured.durationMs > SAMPLE_LIMITS.maxDurationMs
  ) {
    throw durationRefusal(measured.durationMs);
  }
  if (measured.rmsDbfs < SAMPLE_LIMITS.silenceRmsDbfs) {
    throw new ApiError('invalid_request', 'The recording is silent.');
  }
  return { extension, durationMs: measured.durationMs, sampleRateHz, rmsDbfs: measured.rmsDbfs };
}
