import { describe, expect, it } from 'vitest';
import { AdtsDurationCounter } from '../../../media/codecs/adts.ts';
import { PcmDurationCounter } from '../../../media/duration.ts';

/** A minimal ADTS frame: AAC-LC, 44.1 kHz, mono, `bytes` long including the header. */
function adtsFrame(bytes: number): Buffer {
  const frame = Buffer.alloc(bytes);
  frame[0] = 0xff;
  frame[1] = 0xf1; // MPEG-4, layer 0, no CRC
  frame[2] = (1 << 6) | (4 << 2); // profile LC, sampling index 4 (44.1 kHz)
  frame[3] = (1 << 6) | ((bytes >> 11) & 0x03); // channel configuration 1
  frame[4] = (bytes >> 3) & 0xff;
  frame[5] = ((bytes & 0x07) << 5) | 0x1f;
  frame[6] = 0xfc; // one raw data block
  return frame;
}

describe('duration counters', () => {
  it('counts PCM by bytes', () => {
    const counter = new PcmDurationCounter(24000);
    counter.push(Buffer.alloc(24000));
    counter.push(Buffer.alloc(24000));
    expect(counter.durationMs).toBe(1000);
  });

  it('counts ADTS frames across any split and skips garbage', () => {
    const stream = Buffer.concat([
      Buffer.from([1, 2, 3]), // not a frame: resynchronize
      ...Array.from({ length: 43 }, (_, i) => adtsFrame(100 + i)),
    ]);
    for (const step of [1, 7, 1000, stream.byteLength]) {
      const counter = new AdtsDurationCounter();
      for (let offset = 0; offset < stream.byteLength; offset += step) {
        counter.push(stream.subarray(offset, offset + step));
      }
      expect(counter.frames).toBe(43);
      expect(counter.durationMs).toBe(Math.round((43 * 1024 * 1000) / 44100));
    }
  });
});
