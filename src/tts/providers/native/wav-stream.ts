/** Format of the PCM found in a WAV header. */
export interface WavFormat {
  readonly sampleRateHz: number;
  readonly channels: number;
  readonly bitsPerSample: number;
}

/** The bytes espeak-ng wrote are not 16-bit mono PCM WAV. */
export class WavFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavFormatError';
  }
}

const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
/** A header larger than this is not what espeak-ng writes; stop buffering. */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Turns a streamed RIFF/WAVE byte stream into whole 16-bit samples as they arrive.
 *
 * The RIFF and `data` sizes are ignored: espeak-ng writes placeholder sizes (0x7ffff000)
 * when it streams to stdout, so everything after the `data` chunk header until end of
 * stream is audio. Chunks before `data` (`fmt `, `LIST`, ...) are parsed or skipped.
 * An odd trailing byte is carried into the next push, so every returned buffer has an
 * even length.
 */
export class WavPcmStream {
  #header: Buffer = Buffer.alloc(0);
  #format: WavFormat | undefined;
  #inData = false;
  #carry: Buffer | undefined;

  /** The format, once the header up to the `data` chunk has been read. */
  get format(): WavFormat | undefined {
    return this.#inData ? this.#format : undefined;
  }

  /** Feeds bytes; returns the whole samples now available (possibly empty). */
  push(bytes: Buffer): Buffer {
    if (this.#inData) return this.#samples(bytes);
    this.#header = this.#header.length === 0 ? bytes : Buffer.concat([this.#header, bytes]);
    const dataStart = this.#parseHeader();
    if (dataStart === undefined) {
      if (this.#header.length > MAX_HEADER_BYTES) {
        throw new WavFormatError('WAV header too long');
      }
      return Buffer.alloc(0);
    }
    const rest = this.#header.subarray(dataStart);
    this.#header = Buffer.alloc(0);
    this.#inData = true;
    return this.#samples(rest);
  }

  /**
   * Ends the stream. An empty stream is fine (espeak-ng writes nothing at all for empty
   * text); a partial header throws. A lone odd byte is dropped.
   */
  end(): void {
    if (!this.#inData && this.#header.length > 0) {
      throw new WavFormatError('stream ended inside the WAV header');
    }
    this.#carry = undefined;
  }

  #samples(bytes: Buffer): Buffer {
    let data = bytes;
    if (this.#carry !== undefined) {
      data = Buffer.concat([this.#carry, bytes]);
      this.#carry = undefined;
    }
    if (data.length % 2 === 1) {
      this.#carry = Buffer.from(data.subarray(data.length - 1));
      data = data.subarray(0, data.length - 1);
    }
    return data;
  }

  /** Offset of the first audio byte, or undefined while more header bytes are needed. */
  #parseHeader(): number | undefined {
    const h = this.#header;
    if (h.length < RIFF_HEADER_BYTES) return undefined;
    if (h.toString('latin1', 0, 4) !== 'RIFF' || h.toString('latin1', 8, 12) !== 'WAVE') {
      throw new WavFormatError('not a RIFF/WAVE stream');
    }
    let offset = RIFF_HEADER_BYTES;
    while (h.length >= offset + CHUNK_HEADER_BYTES) {
      const id = h.toString('latin1', offset, offset + 4);
      const size = h.readUInt32LE(offset + 4);
      const body = offset + CHUNK_HEADER_BYTES;
      if (id === 'data') {
        if (this.#format === undefined) throw new WavFormatError('data chunk before fmt chunk');
        return body;
      }
      // RIFF chunks are padded to an even size.
      const next = body + size + (size % 2);
      if (h.length < next) return undefined;
      if (id === 'fmt ') this.#format = parseFmt(h.subarray(body, body + size));
      offset = next;
    }
    return undefined;
  }
}

function parseFmt(fmt: Buffer): WavFormat {
  if (fmt.length < 16) throw new WavFormatError('fmt chunk too short');
  const audioFormat = fmt.readUInt16LE(0);
  const format: WavFormat = {
    channels: fmt.readUInt16LE(2),
    sampleRateHz: fmt.readUInt32LE(4),
    bitsPerSample: fmt.readUInt16LE(14),
  };
  if (audioFormat !== 1 || format.channels !== 1 || format.bitsPerSample !== 16) {
    throw new WavFormatError(
      `unsupported WAV format ${audioFormat}, ${format.channels} ch, ${format.bitsPerSample} bit`,
    );
  }
  if (format.sampleRateHz < 1000 || format.sampleRateHz > 192_000) {
    throw new WavFormatError(`implausible sample rate ${format.sampleRateHz}`);
  }
  return format;
}
