import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  encodeRgba,
  MAX_PNG_BYTES,
  PngError,
  readChunks,
  readTextChunks,
  withTextChunks,
} from '../../../src/agents/png.ts';

const pixels = (w: number, h: number) => {
  const data = new Uint8Array(w * h * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 256;
  return data;
};

describe('PNG chunks', () => {
  it('encodes RGBA pixels that decode back to the same bytes', () => {
    const data = pixels(5, 3);
    const png = encodeRgba(5, 3, data);
    const chunks = readChunks(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = chunks[0]?.data as Buffer;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([5, 3, 8, 6]);
    const raw = inflateSync(chunks[1]?.data as Buffer);
    const rows = [0, 1, 2].map((y) => raw.subarray(y * 21 + 1, (y + 1) * 21));
    expect(Buffer.concat(rows)).toEqual(Buffer.from(data));
    expect(() => encodeRgba(5, 3, new Uint8Array(4))).toThrow(RangeError);
  });

  it('adds and replaces tEXt chunks before IEND with valid CRCs', () => {
    const png = encodeRgba(2, 2, pixels(2, 2));
    const once = withTextChunks(png, { ccv3: 'AAAA', chara: 'BBBB' });
    const twice = withTextChunks(once, { ccv3: 'CCCC' });
    expect(readChunks(twice).map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'IEND']);
    expect(Object.fromEntries(readTextChunks(twice))).toEqual({ chara: 'BBBB', ccv3: 'CCCC' });
  });

  it('refuses damaged files with PngError', () => {
    const png = withTextChunks(encodeRgba(2, 2, pixels(2, 2)), { ccv3: 'AAAA' });
    const flip = (at: number) => {
      const copy = Buffer.from(png);
      copy[at] = (copy[at] ?? 0) ^ 0x01;
      return copy;
    };
    const badType = Buffer.from(png);
    badType.write('I1AT', 37, 'latin1'); // the IDAT type with a digit in it
    const crcFixed = (buffer: Buffer, start: number, end: number) => {
      buffer.writeUInt32BE(crc32(buffer.subarray(start + 4, end - 4)), end - 4);
      return buffer;
    };
    const noIhdr = Buffer.concat([png.subarray(0, 8), png.subarray(33)]);
    const emptyKeyword = withTextChunks(encodeRgba(1, 1, pixels(1, 1)), {});
    const withNulFirst = Buffer.concat([
      emptyKeyword.subarray(0, emptyKeyword.length - 12),
      crcFixed(
        Buffer.concat([
          Buffer.from([0, 0, 0, 2]),
          Buffer.from('tEXt'),
          Buffer.from([0, 65]),
          Buffer.alloc(4),
        ]),
        0,
        14,
      ),
      emptyKeyword.subarray(emptyKeyword.length - 12),
    ]);
    for (const bad of [
      Buffer.alloc(0),
      Buffer.from('GIF89a'),
      png.subarray(0, 20),
      png.subarray(0, png.length - 12), // no IEND
      flip(20), // IHDR data, CRC now wrong
      flip(png.length - 6), // IEND CRC
      badType,
      noIhdr,
      withNulFirst,
      Buffer.alloc(MAX_PNG_BYTES + 1),
    ]) {
      expect(() => readTextChunks(bad)).toThrow(PngError);
    }
  });
});
