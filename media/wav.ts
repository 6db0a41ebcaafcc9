import { MediaError } from './errors.ts';
import type { PcmChunk } from './pcm.ts';

/** Size of the canonical 44-byte header written by {@link encodeWav}. */
export const WAV_HEADER_BYTES = 44;

/** A parsed WAV file: format fields and the raw sample bytes of the `data` chunk. */
export interface WavAudio {
  readonly sampleRateHz: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  /** Format tag of the `fmt ` chunk: 1 = integer PCM, 3 = IEEE float, 0xfffe = extensible. */
  readonly formatTag: number;
  readonly data: Buffer;
}

/**
 * Parse a RIFF/WAVE file. Chunks other than `fmt ` and `data` are skipped.
 * A `data` size larger than the file (streaming writers such as `espeak-ng --stdout`
 * write 0x7fffffff because they cannot seek back) is read as "up to the end".
 *
 * @throws MediaError kind `invalid_audio` when the bytes are not a WAV file.
 */
export function parseWav(file: Buffer): WavAudio {
  if (
    file.byteLength < 12 ||
    file.toString('ascii', 0, 4) !== 'RIFF' ||
    file.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw new MediaError('invalid_audio', 'not a RIFF/WAVE file');
  }
  let format: Omit<WavAudio, 'data'> | null = null;
  let offset = 12;
  while (offset + 8 <= file.byteLength) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16) throw new MediaError('invalid_audio', 'WAV fmt chunk too short');
      format = {
        formatTag: file.readUInt16LE(body),
        channels: file.readUInt16LE(body + 2),
        sampleRateHz: file.readUInt32LE(body + 4),
        bitsPerSample: file.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (format === null) throw new MediaError('invalid_audio', 'WAV data chunk before fmt');
      const end = Math.min(file.byteLength, body + size);
      return { ...format, data: file.subarray(body, end) };
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  throw new MediaError('invalid_audio', 'WAV file has no data chunk');
}

/**
 * Parse a WAV file that must hold mono 16-bit integer PCM, as our pipeline uses.
 *
 * @throws MediaError kind `invalid_audio` for any other layout.
 */
export function parsePcmWav(file: Buffer): PcmChunk {
  const wav = parseWav(file);
  if (wav.formatTag !== 1 || wav.channels !== 1 || wav.bitsPerSample !== 16) {
    throw new MediaError(
      'invalid_audio',
      `expected mono 16-bit PCM WAV, got format ${wav.formatTag}, ${wav.channels} channels, ${wav.bitsPerSample} bits`,
    );
  }
  const wholeSamples = wav.data.subarray(0, wav.data.byteLength - (wav.data.byteLength % 2));
  return { data: wholeSamples, sampleRateHz: wav.sampleRateHz };
}

/** The 44-byte header of a mono 16-bit PCM WAV file holding `dataBytes` bytes of samples. */
export function wavHeader(sampleRateHz: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // integer PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRateHz, 24);
  header.writeUInt32LE(sampleRateHz * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** A complete mono 16-bit PCM WAV file holding `pcm`. */
export function encodeWav(pcm: PcmChunk): Buffer {
  return Buffer.concat([wavHeader(pcm.sampleRateHz, pcm.data.byteLength), pcm.data]);
}
