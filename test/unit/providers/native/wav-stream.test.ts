import { describe, expect, it } from 'vitest';
import { WavFormatError, WavPcmStream } from '../../../../src/tts/providers/native/wav-stream.ts';

function chunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function fmt(rate: number, channels = 1, bits = 16, audioFormat = 1): Buffer {
  const body = Buffer.alloc(16);
  body.writeUInt16LE(audioFormat, 0);
  body.writeUInt16LE(channels, 2);
  body.writeUInt32LE(rate, 4);
  body.writeUInt32LE((rate * channels * bits) / 8, 8);
  body.writeUInt16LE((channels * bits) / 8, 12);
  body.writeUInt16LE(bits, 14);
  return chunk('fmt ', body);
}

/** A WAV stream as espeak-ng writes it to a pipe: placeholder sizes, then samples. */
function streamingWav(pcm: Buffer, extraChunks: Buffer[] = []): Buffer {
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(0x7ffff024, 4);
  riff.write('WAVE', 8, 'latin1');
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'latin1');
  dataHeader.writeUInt32LE(0x7ffff000, 4);
  return Buffer.concat([riff, fmt(22_050), ...extraChunks, dataHeader, pcm]);
}

function feed(stream: WavPcmStream, bytes: Buffer, pieceSizes: number[]): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  let i = 0;
  while (offset < bytes.length) {
    const size = pieceSizes[i++ % pieceSizes.length]!;
    const piece = stream.push(bytes.subarray(offset, offset + size));
    expect(piece.length % 2).toBe(0);
    out.push(piece);
    offset += size;
  }
  stream.end();
  return Buffer.concat(out);
}

const PCM = Buffer.from(Array.from({ length: 201 }, (_, i) => (i * 37) % 256));

describe('WavPcmStream', () => {
  it('extracts the samples after a streaming header, whole', () => {
    const stream = new WavPcmStream();
    const out = feed(stream, streamingWav(PCM), [4096]);
    expect(stream.format).toEqual({ sampleRateHz: 22_050, channels: 1, bitsPerSample: 16 });
    // 201 bytes: the lone trailing byte is not a sample.
    expect(out).toEqual(PCM.subarray(0, 200));
  });

  it('handles any split of the header and odd-sized pieces', () => {
    const wav = streamingWav(PCM, [chunk('LIST', Buffer.from('INFOsoftware!'))]);
    for (const sizes of [[1], [2], [3], [5, 7], [13], [43], [44], [45], [57, 1]]) {
      const out = feed(new WavPcmStream(), wav, sizes);
      expect(out, `pieces ${sizes.join(',')}`).toEqual(PCM.subarray(0, 200));
    }
  });

  it('accepts an empty stream (empty text) but not a cut header', () => {
    expect(() => new WavPcmStream().end()).not.toThrow();
    const cut = new WavPcmStream();
    cut.push(streamingWav(PCM).subarray(0, 30));
    expect(() => cut.end()).toThrow(WavFormatError);
  });

  it('rejects what is not 16-bit mono PCM WAV', () => {
    expect(() => new WavPcmStream().push(Buffer.from('ID3\u0004 not a wav file at all'))).toThrow(
      WavFormatError,
    );
    const riff = Buffer.from('RIFF\u0000\u0000\u0000\u0000WAVE', 'latin1');
    const data = Buffer.from('data\u0000\u0000\u0000\u0000', 'latin1');
    for (const bad of [fmt(22_050, 2), fmt(22_050, 1, 8), fmt(22_050, 1, 16, 3)]) {
      expect(() => new WavPcmStream().push(Buffer.concat([riff, bad, data]))).toThrow(
        WavFormatError,
      );
    }
    expect(() => new WavPcmStream().push(Buffer.concat([riff, data]))).toThrow(WavFormatError);
  });
});
