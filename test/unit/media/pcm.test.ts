import { describe, expect, it } from 'vitest';
import {
  concatPcm,
  float32ToPcm,
  int16ToPcm,
  pcmDurationMs,
  pcmRms,
  pcmSilence,
  pcmToFloat32,
  pcmToInt16,
} from '../../../media/pcm.ts';
import { PcmFramer } from '../../../media/pcm-framer.ts';

describe('PCM conversions', () => {
  it('round-trips int16 through float without loss', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234, -4321]);
    const pcm = int16ToPcm(samples);
    expect(Array.from(pcmToInt16(float32ToPcm(pcmToFloat32(pcm))))).toEqual(Array.from(samples));
    expect(pcmToFloat32(pcm)[4]).toBe(-1);
  });

  it('clamps floats outside [-1, 1) instead of wrapping', () => {
    expect(Array.from(pcmToInt16(float32ToPcm(Float32Array.from([1.5, -1.5, 1]))))).toEqual([
      32767, -32768, 32767,
    ]);
  });

  it('reads samples from a buffer at an odd byte offset', () => {
    const backing = Buffer.alloc(5);
    backing.writeInt16LE(-2, 1);
    backing.writeInt16LE(300, 3);
    expect(Array.from(pcmToInt16(backing.subarray(1)))).toEqual([-2, 300]);
  });

  it('measures duration and level', () => {
    expect(pcmDurationMs(48000, 24000)).toBe(1000);
    expect(pcmRms(pcmSilence(100))).toBe(0);
    expect(pcmRms(int16ToPcm(Int16Array.from([16384, -16384])))).toBeCloseTo(0.5);
  });

  it('concatenates chunks of one rate and refuses mixed rates', () => {
    const a = { data: Buffer.from([1, 0]), sampleRateHz: 16000 };
    const b = { data: Buffer.from([2, 0]), sampleRateHz: 16000 };
    expect(concatPcm([a, b], 16000).data).toEqual(Buffer.from([1, 0, 2, 0]));
    expect(() => concatPcm([a, { ...b, sampleRateHz: 24000 }], 16000)).toThrow(RangeError);
  });
});

describe('PcmFramer', () => {
  it('cuts frames independent of how input was chunked and pads the tail', () => {
    const input = Buffer.from(Array.from({ length: 22 }, (_, i) => i + 1));
    const framer = new PcmFramer(8);
    const frames = [
      ...framer.push(input.subarray(0, 3)),
      ...framer.push(input.subarray(3, 17)),
      ...framer.push(input.subarray(17)),
    ];
    expect(frames.map((f) => [...f])).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8],
      [9, 10, 11, 12, 13, 14, 15, 16],
    ]);
    expect(framer.pendingBytes).toBe(6);
    expect([...framer.flushPadded()!]).toEqual([17, 18, 19, 20, 21, 22, 0, 0]);
    expect(framer.flushPadded()).toBeNull();
  });
});
