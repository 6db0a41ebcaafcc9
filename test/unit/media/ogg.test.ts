import { describe, expect, it } from 'vitest';
import {
  OGG_FLAG_BOS,
  OGG_FLAG_EOS,
  OggStreamWriter,
  oggCrc32,
  oggSegmentCount,
} from '../../../media/codecs/ogg.ts';
import { OggPageReader, oggPagePackets } from '../../../media/codecs/ogg-reader.ts';
import { runProcess } from '../../helpers/audio.ts';

describe('oggCrc32', () => {
  it('matches the CRC-32/OGG check value (poly 0x04c11db7, init 0, no reflection)', () => {
    expect(oggCrc32(Buffer.from('123456789', 'ascii'))).toBe(0x89a1897f);
    expect(oggCrc32(Buffer.alloc(0))).toBe(0);
  });

  it('validates every page of an Ogg file that ffmpeg wrote (an independent CRC)', async () => {
    const made = await runProcess('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'],
      ...['-c:a', 'libopus', '-f', 'ogg', 'pipe:1'],
    ]);
    expect(made.code).toBe(0);
    const pages = new OggPageReader().push(made.stdout);
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.every((page) => page.crcValid)).toBe(true);
  });
});

describe('OggStreamWriter', () => {
  it('laces packets, numbers pages and round-trips through the reader', () => {
    const writer = new OggStreamWriter(42);
    const small = Buffer.alloc(100, 1);
    const exact = Buffer.alloc(510, 2); // a multiple of 255 needs a trailing 0 lacing value
    const large = Buffer.alloc(1000, 3);
    const bytes = Buffer.concat([
      writer.writePage({ packets: [small], granulePosition: 0n, bos: true }),
      writer.writePage({ packets: [exact, large], granulePosition: 960n }),
      writer.writePage({ packets: [small], granulePosition: 1500n, eos: true }),
    ]);
    expect(oggSegmentCount(510)).toBe(3);

    // Feed one byte at a time: pages must not depend on the split.
    const reader = new OggPageReader();
    const pages = [...bytes].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(pages.map((p) => p.sequence)).toEqual([0, 1, 2]);
    expect(pages.map((p) => p.serialNumber)).toEqual([42, 42, 42]);
    expect(pages.map((p) => p.crcValid)).toEqual([true, true, true]);
    expect(pages[0]!.headerType).toBe(OGG_FLAG_BOS);
    expect(pages[1]!.headerType).toBe(0);
    expect(pages[2]!.headerType).toBe(OGG_FLAG_EOS);
    expect(pages.map((p) => p.granulePosition)).toEqual([0n, 960n, 1500n]);
    expect(oggPagePackets(pages[1]!)).toEqual([exact, large]);
    expect(Array.from(pages[1]!.segments)).toEqual([255, 255, 0, 255, 255, 255, 235]);
  });

  it('refuses a page that needs more than 255 lacing values', () => {
    const writer = new OggStreamWriter(1);
    expect(() =>
      writer.writePage({ packets: [Buffer.alloc(255 * 255)], granulePosition: 0n }),
    ).toThrow(RangeError);
  });

  it('detects a corrupted page by its CRC', () => {
    const page = new OggStreamWriter(7).writePage({
      packets: [Buffer.from('hello')],
      granulePosition: 5n,
    });
    page.writeUInt8(page.readUInt8(page.byteLength - 1) ^ 0xff, page.byteLength - 1);
    expect(new OggPageReader().push(page)[0]!.crcValid).toBe(false);
  });
});
