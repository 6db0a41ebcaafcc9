import { AAC_SAMPLE_RATE_HZ, createAacEncoder } from './codecs/aac-ffmpeg.ts';
import { AdtsDurationCounter } from './codecs/adts.ts';
import { OggOpusDurationCounter } from './codecs/ogg-opus-duration.ts';
import { createOggOpusEncoder, OPUS_SAMPLE_RATE_HZ, opusInputRateFor } from './codecs/opus-ogg.ts';
import { createPcmEncoder } from './codecs/pcm-passthrough.ts';
import { type DurationCounter, PcmDurationCounter } from './duration.ts';
import type { AudioEncoder, AudioEncoderOptions } from './encoder.ts';

/** Every output format the API accepts, in the spec's order. */
export const OUTPUT_FORMATS = [
  'pcm_16000',
  'pcm_24000',
  'pcm_44100',
  'pcm_48000',
  'aac_44100_128',
  'opus_48000_64',
] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The codec family of a format. */
export type AudioCodec = 'pcm' | 'aac' | 'opus';

/** Options every format's encoder factory accepts; codec-specific ones are ignored elsewhere. */
export interface EncoderFactoryOptions extends AudioEncoderOptions {
  /** libopus complexity 0..10 for `opus_*` formats. */
  readonly opusComplexity?: number;
  /** ffmpeg executable for `aac_*` formats. Default `ffmpeg` on PATH. */
  readonly ffmpegPath?: string;
  /**
   * Rate of the PCM the caller has, when known. Opus then encodes from the lowest input
   * rate that keeps its band (see `opusInputRateFor`); read the rate to resample to from
   * the encoder's `sampleRateHz`.
   */
  readonly sourceSampleRateHz?: number;
}

/** What the service needs to know to deliver one output format. */
export interface OutputFormatInfo {
  readonly id: OutputFormat;
  readonly codec: AudioCodec;
  /**
   * `Content-Type` of the response. PCM uses `audio/pcm;rate=N;channels=1`: `audio/L16`
   * (RFC 2586) means big-endian samples, and ours are little-endian.
   */
  readonly contentType: string;
  /** Rate of the delivered audio (what a decoder plays it at). */
  readonly sampleRateHz: number;
  /**
   * The PCM rate to ask a speech engine for, given the rate the engine itself produces
   * (when it has a fixed one): the delivered rate for PCM and AAC; for Opus the encoder's
   * input rate, 24 kHz for audio of that band or less (see `opusInputRateFor`), else 48 kHz.
   */
  sourceRateHz(engineRateHz: number | undefined): number;
  readonly channels: 1;
  /** Nominal bitrate: exact for PCM (rate x 16), the encoder target for AAC and Opus. */
  readonly bitrateBps: number;
  /** A new long-lived streaming encoder for this format. */
  createEncoder(options?: EncoderFactoryOptions): AudioEncoder;
  /** A new counter of encoded playback duration for this format's byte stream. */
  createDurationCounter(): DurationCounter;
}

function pcmFormat(id: OutputFormat, sampleRateHz: number): OutputFormatInfo {
  return {
    id,
    codec: 'pcm',
    contentType: `audio/pcm;rate=${sampleRateHz};channels=1`,
    sampleRateHz,
    sourceRateHz: () => sampleRateHz,
    channels: 1,
    bitrateBps: sampleRateHz * 16,
    createEncoder: (options) => createPcmEncoder(sampleRateHz, options),
    createDurationCounter: () => new PcmDurationCounter(sampleRateHz),
  };
}

const FORMAT_INFO: { readonly [F in OutputFormat]: OutputFormatInfo } = {
  pcm_16000: pcmFormat('pcm_16000', 16000),
  pcm_24000: pcmFormat('pcm_24000', 24000),
  pcm_44100: pcmFormat('pcm_44100', 44100),
  pcm_48000: pcmFormat('pcm_48000', 48000),
  aac_44100_128: {
    id: 'aac_44100_128',
    codec: 'aac',
    contentType: 'audio/aac',
    sampleRateHz: AAC_SAMPLE_RATE_HZ,
    sourceRateHz: () => AAC_SAMPLE_RATE_HZ,
    channels: 1,
    bitrateBps: 128000,
    createEncoder: (options = {}) => createAacEncoder({ ...options, bitrateBps: 128000 }),
    createDurationCounter: () => new AdtsDurationCounter(),
  },
  opus_48000_64: {
    id: 'opus_48000_64',
    codec: 'opus',
    contentType: 'audio/ogg; codecs=opus',
    sampleRateHz: OPUS_SAMPLE_RATE_HZ,
    sourceRateHz: opusInputRateFor,
    channels: 1,
    bitrateBps: 64000,
    createEncoder: (options = {}) =>
      createOggOpusEncoder({
        ...options,
        bitrateBps: 64000,
        inputSampleRateHz: opusInputRateFor(options.sourceSampleRateHz),
        ...(options.opusComplexity === undefined ? {} : { complexity: options.opusComplexity }),
      }),
    createDurationCounter: () => new OggOpusDurationCounter(),
  },
};

/** The registry entry of `format`. */
export function getOutputFormatInfo(format: OutputFormat): OutputFormatInfo {
  return FORMAT_INFO[format];
}

/** True when `value` is exactly one of {@link OUTPUT_FORMATS}. */
export function isOutputFormat(value: string): value is OutputFormat {
  return Object.hasOwn(FORMAT_INFO, value);
}

/**
 * Why a format string was refused: `missing_rate` for bare `pcm` (the spec forbids
 * inferring a rate), `unknown_format` for anything else not in {@link OUTPUT_FORMATS}.
 */
export type OutputFormatRejection = 'missing_rate' | 'unknown_format';

/** Result of {@link parseOutputFormat}. */
export type ParseOutputFormatResult =
  | { readonly ok: true; readonly format: OutputFormat; readonly info: OutputFormatInfo }
  | { readonly ok: false; readonly reason: OutputFormatRejection; readonly message: string };

/**
 * Parse an `output_format` value. Exact match only: no case folding, trimming or defaults,
 * so what the client sent is what it gets.
 *
 * @example
 * const parsed = parseOutputFormat(body.output_format);
 * if (!parsed.ok) throw invalidRequest(parsed.message);
 * const encoder = parsed.info.createEncoder({ signal });
 */
export function parseOutputFormat(value: string): ParseOutputFormatResult {
  if (isOutputFormat(value)) return { ok: true, format: value, info: FORMAT_INFO[value] };
  if (value === 'pcm') {
    return {
      ok: false,
      reason: 'missing_rate',
      message: `output_format "pcm" needs a sample rate: use one of ${pcmFormats().join(', ')}`,
    };
  }
  return {
    ok: false,
    reason: 'unknown_format',
    message: `unknown output_format "${value.slice(0, 64)}"; expected one of ${OUTPUT_FORMATS.join(', ')}`,
  };
}

function pcmFormats(): OutputFormat[] {
  return OUTPUT_FORMATS.filter((format) => FORMAT_INFO[format].codec === 'pcm');
}
