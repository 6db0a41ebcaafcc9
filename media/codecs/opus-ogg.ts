import { randomInt } from 'node:crypto';
import opus from '@discordjs/opus';
import type { AudioEncoder, AudioEncoderOptions } from '../encoder.ts';
import { MediaError } from '../errors.ts';
import { PCM_BYTES_PER_SAMPLE, pcmSampleCount, pcmSilence } from '../pcm.ts';
import { PcmFramer } from '../pcm-framer.ts';
import { SyncAudioEncoder } from '../sync-encoder.ts';
import { OGG_MAX_SEGMENTS, OggStreamWriter, oggSegmentCount } from './ogg.ts';

/** Opus in Ogg decodes at 48 kHz; granule positions and pre-skip count 48 kHz samples. */
export const OPUS_SAMPLE_RATE_HZ = 48000;

/** Input rates libopus encodes from. Below 48 kHz the coded bandwidth is half the rate. */
export const OPUS_INPUT_RATES_HZ = [8000, 12000, 16000, 24000, 48000] as const;
export type OpusInputRateHz = (typeof OPUS_INPUT_RATES_HZ)[number];

/**
 * The input rate to encode a source at: the lowest Opus input rate that keeps the whole
 * source band, at least 24 kHz (so speech keeps its 12 kHz band), else 48 kHz. A 22,050 Hz
 * engine is encoded from 24 kHz, which halves resampling and encoding work and loses
 * nothing the source had; decoders still play it at 48 kHz.
 *
 * @example opusInputRateFor(22050) // 24000
 */
export function opusInputRateFor(sourceRateHz: number | undefined): OpusInputRateHz {
  return sourceRateHz !== undefined && sourceRateHz <= 24000 ? 24000 : 48000;
}

/**
 * Encoder delay of libopus at 48 kHz in the AUDIO and VOIP applications (Fs/400 + Fs/250
 * samples). @discordjs/opus cannot run OPUS_GET_LOOKAHEAD (its CTL call passes an int, not
 * a pointer), so the value is fixed here and checked by a decode test.
 */
export const LIBOPUS_LOOKAHEAD_SAMPLES = 312;

/**
 * Default libopus complexity. Measured at 64 kbps, 20 ms frames on espeak-ng speech (three
 * voices): complexity 8 scores PESQ-WB 3.91 for about 6 ms of CPU per second of audio; 10
 * scored the same at the same cost, 5 scores 3.54 for 4.9 ms, 0 scores 3.71 for 1.9 ms. Encoding stays under 1% of a core per real-time stream at 8, so quality
 * wins; set `complexity: 0` where CPU is scarcer than quality.
 */
export const DEFAULT_OPUS_COMPLEXITY = 8;

const OPUS_SET_BITRATE = 4002;
const OPUS_SET_COMPLEXITY = 4010;

/** Frame durations Opus accepts, in milliseconds. */
export type OpusFrameDurationMs = 2.5 | 5 | 10 | 20 | 40 | 60;

/** Options of {@link OggOpusEncoder}. */
export interface OggOpusEncoderOptions {
  /** Target bitrate (VBR). Default 64000. */
  readonly bitrateBps?: number;
  /** libopus complexity 0..10; CPU cost grows with it. Default {@link DEFAULT_OPUS_COMPLEXITY}. */
  readonly complexity?: number;
  /** Default 20 ms, the usual balance of overhead and latency. */
  readonly frameDurationMs?: OpusFrameDurationMs;
  /**
   * Most frames per Ogg page. A push writes all its complete frames at once, split into
   * pages of at most this many (default 50, one second at 20 ms) and at most 255 lacing
   * values, to bound page size.
   */
  readonly maxFramesPerPage?: number;
  /** Ogg stream serial number; random by default. */
  readonly serialNumber?: number;
  /** Rate of the PCM pushed in. Default 48 kHz. */
  readonly inputSampleRateHz?: OpusInputRateHz;
}

/**
 * Opus encoder (libopus through @discordjs/opus) that writes one Ogg Opus stream
 * (RFC 7845) across any number of pushes. Every push returns complete Ogg pages for all
 * frames it completed, so the concatenation of all returned bytes so far is always a
 * decodable stream. The header pages come with the first audio page, so no returned chunk
 * is headers alone.
 *
 * Input is s16le mono PCM at `inputSampleRateHz` (default 48 kHz); granule positions and
 * the pre-skip are in 48 kHz samples whatever the input rate (RFC 7845).
 *
 * @example
 * const encoder = new OggOpusEncoder();
 * for (const segment of segments) send(encoder.push(segment));
 * send(encoder.end()); // pads the last frame and marks end of stream
 */
export class OggOpusEncoder {
  /** Encoder delay in 48 kHz samples. */
  readonly preSkip = LIBOPUS_LOOKAHEAD_SAMPLES;
  readonly inputSampleRateHz: OpusInputRateHz;
  /** Samples per frame at the input rate. */
  readonly frameSamples: number;
  /** 48 kHz samples per input sample. */
  readonly #scale: number;
  readonly #encoder: InstanceType<typeof opus.OpusEncoder>;
  readonly #framer: PcmFramer;
  readonly #ogg: OggStreamWriter;
  readonly #maxFramesPerPage: number;
  #headersWritten = false;
  #ended = false;
  #inputSamples = 0;
  #encodedSamples = 0;

  constructor(options: OggOpusEncoderOptions = {}) {
    const frameDurationMs = options.frameDurationMs ?? 20;
    this.inputSampleRateHz = options.inputSampleRateHz ?? OPUS_SAMPLE_RATE_HZ;
    if (!OPUS_INPUT_RATES_HZ.includes(this.inputSampleRateHz)) {
      throw new RangeError(`Opus cannot encode from ${this.inputSampleRateHz} Hz`);
    }
    this.#scale = OPUS_SAMPLE_RATE_HZ / this.inputSampleRateHz;
    this.frameSamples = (this.inputSampleRateHz * frameDurationMs) / 1000;
    this.#framer = new PcmFramer(this.frameSamples * PCM_BYTES_PER_SAMPLE);
    this.#ogg = new OggStreamWriter(options.serialNumber ?? randomInt(0, 2 ** 32));
    this.#maxFramesPerPage = Math.max(
      1,
      Math.min(options.maxFramesPerPage ?? 50, OGG_MAX_SEGMENTS),
    );
    const complexity = options.complexity ?? DEFAULT_OPUS_COMPLEXITY;
    if (!Number.isInteger(complexity) || complexity < 0 || complexity > 10) {
      throw new RangeError(`Opus complexity must be 0..10, got ${complexity}`);
    }
    try {
      this.#encoder = new opus.OpusEncoder(this.inputSampleRateHz, 1);
      this.#encoder.applyEncoderCTL(OPUS_SET_BITRATE, options.bitrateBps ?? 64000);
      this.#encoder.applyEncoderCTL(OPUS_SET_COMPLEXITY, complexity);
    } catch (error) {
      throw new MediaError('encoder_failed', 'could not configure the Opus encoder', {
        cause: error,
      });
    }
  }

  /** Samples pushed so far (at the input rate), not counting padding. */
  get inputSamples(): number {
    return this.#inputSamples;
  }

  /**
   * Encode `pcm` (s16le mono at the input rate) and return the Ogg pages of every frame it completed;
   * empty when no frame completed yet (less than one frame is buffered).
   */
  push(pcm: Buffer): Buffer {
    this.#assertOpen();
    this.#inputSamples += pcmSampleCount(pcm.byteLength);
    const packets = this.#framer.push(pcm).map((frame) => this.#encode(frame));
    return this.#pages(packets, false);
  }

  /**
   * Finish the stream: pad the last partial frame with silence, add frames until the
   * encoder delay is flushed, and write the last page with the end-of-stream flag. Its
   * granule position marks exactly the pushed samples, so players trim the padding.
   */
  end(): Buffer {
    this.#assertOpen();
    this.#ended = true;
    const packets: Buffer[] = [];
    const padded = this.#framer.flushPadded();
    if (padded) packets.push(this.#encode(padded));
    // Decoded output lags input by the pre-skip: encode until every input sample is out.
    const silence = pcmSilence(this.frameSamples);
    while (this.#encodedSamples * this.#scale < this.#inputSamples * this.#scale + this.preSkip) {
      packets.push(this.#encode(silence));
    }
    return this.#pages(packets, true);
  }

  #assertOpen(): void {
    if (this.#ended) throw new MediaError('encoder_failed', 'Opus encoder used after end()');
  }

  #encode(frame: Buffer): Buffer {
    try {
      const packet = this.#encoder.encode(frame);
      this.#encodedSamples += this.frameSamples;
      return packet;
    } catch (error) {
      throw new MediaError('encoder_failed', 'libopus failed to encode a frame', { cause: error });
    }
  }

  /** Serialize packets into pages, with the header pages in front the first time. */
  #pages(packets: Buffer[], last: boolean): Buffer {
    if (packets.length === 0) return Buffer.alloc(0);
    const pages: Buffer[] = [];
    if (!this.#headersWritten) {
      this.#headersWritten = true;
      // RFC 7845: OpusHead alone on the first (BOS) page, OpusTags on its own page(s).
      pages.push(
        this.#ogg.writePage({ packets: [this.#opusHead()], granulePosition: 0n, bos: true }),
      );
      pages.push(this.#ogg.writePage({ packets: [opusTags()], granulePosition: 0n }));
    }
    // Granule of a page = 48 kHz samples decoded up to its last packet, pre-skip included.
    const frame48k = this.frameSamples * this.#scale;
    const encoded48k = this.#encodedSamples * this.#scale;
    let granule = encoded48k - packets.length * frame48k;
    for (const pagePackets of this.#splitIntoPages(packets)) {
      granule += pagePackets.length * frame48k;
      const isLast = last && granule === encoded48k;
      pages.push(
        this.#ogg.writePage({
          packets: pagePackets,
          // The final granule is below the encoded total: it tells decoders where the real
          // audio ends so padding is cut (RFC 7845 section 4.5).
          granulePosition: BigInt(
            isLast ? this.#inputSamples * this.#scale + this.preSkip : granule,
          ),
          eos: isLast,
        }),
      );
    }
    return Buffer.concat(pages);
  }

  /** Group packets into pages of at most `maxFramesPerPage` frames and 255 lacing values. */
  #splitIntoPages(packets: Buffer[]): Buffer[][] {
    const pages: Buffer[][] = [];
    let current: Buffer[] = [];
    let segments = 0;
    for (const packet of packets) {
      const needed = oggSegmentCount(packet.byteLength);
      if (current.length === this.#maxFramesPerPage || segments + needed > OGG_MAX_SEGMENTS) {
        pages.push(current);
        current = [];
        segments = 0;
      }
      current.push(packet);
      segments += needed;
    }
    if (current.length > 0) pages.push(current);
    return pages;
  }

  #opusHead(): Buffer {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'ascii');
    head.writeUInt8(1, 8); // version
    head.writeUInt8(1, 9); // channels
    head.writeUInt16LE(this.preSkip, 10);
    head.writeUInt32LE(this.inputSampleRateHz, 12); // input rate, informational
    head.writeInt16LE(0, 16); // output gain
    head.writeUInt8(0, 18); // channel mapping family 0: mono/stereo
    return head;
  }
}

function opusTags(): Buffer {
  const vendor = Buffer.from('libopus via @discordjs/opus', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.byteLength + 4);
  tags.write('OpusTags', 0, 'ascii');
  tags.writeUInt32LE(vendor.byteLength, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.byteLength); // no user comments
  return tags;
}

/**
 * A streaming Ogg Opus {@link AudioEncoder}: PCM at the input rate (default 48 kHz) in, Ogg
 * pages out as frames complete.
 *
 * @example
 * const encoder = createOggOpusEncoder({ signal, inputSampleRateHz: opusInputRateFor(22050) });
 */
export function createOggOpusEncoder(
  options: OggOpusEncoderOptions & AudioEncoderOptions = {},
): AudioEncoder {
  const encoder = new OggOpusEncoder(options);
  return new SyncAudioEncoder(encoder, encoder.inputSampleRateHz, options);
}
