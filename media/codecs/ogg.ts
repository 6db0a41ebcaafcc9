/**
 * Ogg page writing (RFC 3533): page header, segment (lacing) table and the Ogg CRC-32.
 * Only what an encoder of small packets needs: every packet starts and ends on one page.
 */

/** Header-type flags of an Ogg page. */
export const OGG_FLAG_CONTINUED = 0x01;
export const OGG_FLAG_BOS = 0x02;
export const OGG_FLAG_EOS = 0x04;

/** Fixed part of an Ogg page header, before the segment table. */
export const OGG_PAGE_HEADER_BYTES = 27;
/** A page's segment table has at most 255 entries. */
export const OGG_MAX_SEGMENTS = 255;

const CRC_TABLE = buildCrcTable();

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index++) {
    let crc = index << 24;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    }
    table[index] = crc >>> 0;
  }
  return table;
}

/**
 * The Ogg CRC-32: polynomial 0x04c11db7, initial value 0, no bit reflection, no final XOR
 * (unlike zlib's CRC-32). Computed over the whole page with the CRC field set to zero.
 * Check value: `oggCrc32(Buffer.from('123456789')) === 0x89a1897f`.
 */
export function oggCrc32(data: Uint8Array, initial = 0): number {
  let crc = initial;
  for (let i = 0; i < data.length; i++) {
    crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ data[i]!) & 0xff]!;
  }
  return crc >>> 0;
}

/** Number of lacing values a packet of `byteLength` needs: a 0..254 value ends it. */
export function oggSegmentCount(byteLength: number): number {
  return Math.floor(byteLength / 255) + 1;
}

/** What goes into one page. */
export interface OggPageInput {
  /** Whole packets, in order; each starts and ends on this page. */
  readonly packets: readonly Buffer[];
  /** Codec-defined position at the end of the last packet (Opus: 48 kHz samples). */
  readonly granulePosition: bigint;
  /** Beginning of stream: set on the first page only. */
  readonly bos?: boolean;
  /** End of stream: set on the last page only. */
  readonly eos?: boolean;
}

/**
 * Writes the pages of one logical Ogg stream: holds the serial number and the page
 * sequence counter so consecutive `writePage` results concatenate into a valid stream.
 *
 * @example
 * const ogg = new OggStreamWriter(0x1234);
 * const head = ogg.writePage({ packets: [opusHead], granulePosition: 0n, bos: true });
 */
export class OggStreamWriter {
  readonly serialNumber: number;
  #sequence = 0;

  constructor(serialNumber: number) {
    this.serialNumber = serialNumber >>> 0;
  }

  /** Sequence number the next page will carry. */
  get nextSequence(): number {
    return this.#sequence;
  }

  /**
   * Serialize one page. Throws a `RangeError` when the packets need more than 255 lacing
   * values (about 64 KB): split them over several calls instead.
   */
  writePage(page: OggPageInput): Buffer {
    const segmentCount = page.packets.reduce((sum, p) => sum + oggSegmentCount(p.byteLength), 0);
    if (segmentCount > OGG_MAX_SEGMENTS) {
      throw new RangeError(`Ogg page needs ${segmentCount} segments; at most 255 fit`);
    }
    const bodyBytes = page.packets.reduce((sum, p) => sum + p.byteLength, 0);
    const out = Buffer.alloc(OGG_PAGE_HEADER_BYTES + segmentCount + bodyBytes);
    out.write('OggS', 0, 'ascii');
    out.writeUInt8(0, 4); // stream structure version
    out.writeUInt8((page.bos ? OGG_FLAG_BOS : 0) | (page.eos ? OGG_FLAG_EOS : 0), 5);
    out.writeBigInt64LE(page.granulePosition, 6);
    out.writeUInt32LE(this.serialNumber, 14);
    out.writeUInt32LE(this.#sequence, 18);
    // bytes 22..25 hold the CRC, zero while it is computed
    out.writeUInt8(segmentCount, 26);
    let lacing = OGG_PAGE_HEADER_BYTES;
    let body = OGG_PAGE_HEADER_BYTES + segmentCount;
    for (const packet of page.packets) {
      let remaining = packet.byteLength;
      while (remaining >= 255) {
        out[lacing++] = 255;
        remaining -= 255;
      }
      out[lacing++] = remaining;
      packet.copy(out, body);
      body += packet.byteLength;
    }
    out.writeUInt32LE(oggCrc32(out), 22);
    this.#sequence++;
    return out;
  }
}
