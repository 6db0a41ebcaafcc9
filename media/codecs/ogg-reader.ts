import { OGG_PAGE_HEADER_BYTES, oggCrc32 } from './ogg.ts';

/** One parsed Ogg page. */
export interface OggPage {
  readonly headerType: number;
  readonly granulePosition: bigint;
  readonly serialNumber: number;
  readonly sequence: number;
  /** Whether the stored CRC matches the page bytes. */
  readonly crcValid: boolean;
  /** The lacing values of the segment table. */
  readonly segments: Uint8Array;
  readonly body: Buffer;
}

const CAPTURE = Buffer.from('OggS', 'ascii');

/**
 * Incremental Ogg page parser: feed bytes as they arrive in any split, get back the pages
 * completed so far. Bytes before a capture pattern are skipped, so it resynchronizes after
 * garbage like a decoder would.
 *
 * @example
 * const reader = new OggPageReader();
 * for (const chunk of chunks) for (const page of reader.push(chunk)) inspect(page);
 */
export class OggPageReader {
  #pending: Buffer = Buffer.alloc(0);

  /** Bytes held waiting for the rest of a page. */
  get bufferedBytes(): number {
    return this.#pending.byteLength;
  }

  /** Add `bytes` and return the pages they complete. */
  push(bytes: Buffer): OggPage[] {
    let data = this.#pending.byteLength === 0 ? bytes : Buffer.concat([this.#pending, bytes]);
    const pages: OggPage[] = [];
    for (;;) {
      const start = data.indexOf(CAPTURE);
      if (start < 0) {
        // Keep a possible partial capture pattern at the end.
        data = data.subarray(Math.max(0, data.byteLength - (CAPTURE.byteLength - 1)));
        break;
      }
      data = data.subarray(start);
      if (data.byteLength < OGG_PAGE_HEADER_BYTES) break;
      const segmentCount = data[26]!;
      const headerBytes = OGG_PAGE_HEADER_BYTES + segmentCount;
      if (data.byteLength < headerBytes) break;
      const segments = data.subarray(OGG_PAGE_HEADER_BYTES, headerBytes);
      const bodyBytes = segments.reduce((sum, value) => sum + value, 0);
      if (data.byteLength < headerBytes + bodyBytes) break;
      const pageBytes = Buffer.from(data.subarray(0, headerBytes + bodyBytes));
      const storedCrc = pageBytes.readUInt32LE(22);
      pageBytes.writeUInt32LE(0, 22);
      pages.push({
        headerType: pageBytes[5]!,
        granulePosition: pageBytes.readBigInt64LE(6),
        serialNumber: pageBytes.readUInt32LE(14),
        sequence: pageBytes.readUInt32LE(18),
        crcValid: oggCrc32(pageBytes) === storedCrc,
        segments: new Uint8Array(segments),
        body: pageBytes.subarray(headerBytes),
      });
      data = data.subarray(headerBytes + bodyBytes);
    }
    this.#pending = Buffer.from(data);
    return pages;
  }
}

/**
 * Split a page body into its packets by the lacing values. The last element is a packet
 * continued on the next page when the final lacing value is 255.
 */
export function oggPagePackets(page: OggPage): Buffer[] {
  const packets: Buffer[] = [];
  let offset = 0;
  let length = 0;
  for (const value of page.segments) {
    length += value;
    if (value < 255) {
      packets.push(page.body.subarray(offset, offset + length));
      offset += length;
      length = 0;
    }
  }
  if (length > 0) packets.push(page.body.subarray(offset, offset + length));
  return packets;
}
