import { crc32, deflateSync } from 'node:zlib';

/**
 * The few PNG operations character cards need: walk the chunks of a file (checking each
 * CRC), read and add `tEXt` chunks, and encode RGBA pixels. Written here because no
 * installed library reads or writes arbitrary text chunks; node's zlib supplies deflate and
 * CRC-32.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Largest PNG accepted for reading. */
export const MAX_PNG_BYTES = 8 * 1024 * 1024;
const MAX_CHUNKS = 10_000;

/** Why a file is not a PNG this service can read. */
export class PngError extends Error {
  override name = 'PngError';
}

export interface PngChunk {
  type: string;
  data: Buffer;
}

/** Every chunk of a PNG file in order, CRCs checked; throws `PngError` on any damage. */
export function readChunks(png: Buffer): PngChunk[] {
  if (png.byteLength > MAX_PNG_BYTES) throw new PngError('file too large');
  if (png.byteLength < SIGNATURE.byteLength || !png.subarray(0, 8).equals(SIGNATURE)) {
    throw new PngError('not a PNG file');
  }
  const chunks: PngChunk[] = [];
  let offset = SIGNATURE.byteLength;
  while (offset < png.byteLength) {
    if (chunks.length >= MAX_CHUNKS) throw new PngError('too many chunks');
    if (offset + 12 > png.byteLength) throw new PngError('truncated chunk header');
    const length = png.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > png.byteLength) throw new PngError('truncated chunk');
    const typeBytes = png.subarray(offset + 4, offset + 8);
    if (!typeBytes.every((b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a))) {
      throw new PngError('invalid chunk type');
    }
    const crc = png.readUInt32BE(end - 4);
    if (crc32(png.subarray(offset + 4, end - 4)) !== crc) throw new PngError('bad chunk CRC');
    const type = typeBytes.toString('latin1');
    chunks.push({ type, data: png.subarray(offset + 8, end - 4) });
    offset = end;
    if (type === 'IEND') break;
  }
  if (chunks[0]?.type !== 'IHDR' || chunks.at(-1)?.type !== 'IEND') {
    throw new PngError('missing IHDR or IEND');
  }
  return chunks;
}

/** `tEXt` chunks by keyword (the first of each keyword wins). */
export function readTextChunks(png: Buffer): Map<string, string> {
  const texts = new Map<string, string>();
  for (const chunk of readChunks(png)) {
    if (chunk.type !== 'tEXt') continue;
    const nul = chunk.data.indexOf(0);
    if (nul < 1 || nul > 79) throw new PngError('invalid tEXt keyword');
    const keyword = chunk.data.subarray(0, nul).toString('latin1');
    if (!texts.has(keyword)) texts.set(keyword, chunk.data.subarray(nul + 1).toString('latin1'));
  }
  return texts;
}

/**
 * A copy of `png` whose `tEXt` chunks named in `texts` are replaced by the given values,
 * written just before `IEND`. Values must be Latin-1 (base64 is).
 */
export function withTextChunks(png: Buffer, texts: Record<string, string>): Buffer {
  const chunks = readChunks(png).filter(
    (chunk) => !(chunk.type === 'tEXt' && chunkKeyword(chunk) in texts),
  );
  const iend = chunks.pop() as PngChunk;
  for (const [keyword, value] of Object.entries(texts)) {
    chunks.push({
      type: 'tEXt',
      data: Buffer.concat([
        Buffer.from(keyword, 'latin1'),
        Buffer.of(0),
        Buffer.from(value, 'latin1'),
      ]),
    });
  }
  chunks.push(iend);
  return encodeChunks(chunks);
}

/** An 8-bit RGBA PNG of `pixels` (row-major, 4 bytes per pixel). */
export function encodeRgba(width: number, height: number, pixels: Uint8Array): Buffer {
  if (pixels.byteLength !== width * height * 4) throw new RangeError('pixel buffer size');
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // depth 8, colour type RGBA, deflate, filter 0, no interlace
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter: none
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return encodeChunks([
    { type: 'IHDR', data: header },
    { type: 'IDAT', data: deflateSync(raw, { level: 9 }) },
    { type: 'IEND', data: Buffer.alloc(0) },
  ]);
}

function encodeChunks(chunks: readonly PngChunk[]): Buffer {
  const parts: Buffer[] = [SIGNATURE];
  for (const chunk of chunks) {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(chunk.data.byteLength, 0);
    head.write(chunk.type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), chunk.data])), 0);
    parts.push(head, chunk.data, crc);
  }
  return Buffer.concat(parts);
}

function chunkKeyword(chunk: PngChunk): string {
  const nul = chunk.data.indexOf(0);
  return chunk.data.subarray(0, Math.max(nul, 0)).toString('latin1');
}
