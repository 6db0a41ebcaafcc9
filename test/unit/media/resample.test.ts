import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../media/errors.ts';
import { float32ToPcm, pcmToFloat32 } from '../../../media/pcm.ts';
import { PolyphaseResampler } from '../../../media/polyphase-resampler.ts';
import {
  createResampler,
  PassThroughResampler,
  type ResamplerOptions,
} from '../../../media/resample.ts';
import { SpeexResampler } from '../../../media/speex-resampler.ts';
import { snrDb, splitPcm, sineSweep as sweep } from '../../helpers/audio.ts';

// Engine rates (espeak-ng 22,050, Kokoro and vendors 24,000, vendors 16,000 to 48,000,
// telephony 8,000) and every output rate, including Opus's 24,000 input.
const SOURCE_RATES_HZ = [8000, 16000, 22050, 24000, 44100, 48000];
const TARGET_RATES_HZ = [8000, 16000, 22050, 24000, 44100, 48000];
const pairs = SOURCE_RATES_HZ.flatMap((from) =>
  TARGET_RATES_HZ.filter((to) => to !== from).map((to) => [from, to] as const),
);
/** Each pair on both paths: the default (polyphase) and Speex, chosen by setting a quality. */
const engines = [
  { name: 'polyphase', options: {} as ResamplerOptions, type: PolyphaseResampler },
  { name: 'speex q7', options: { quality: 7 } as ResamplerOptions, type: SpeexResampler },
] as const;
const cases = engines.flatMap((engine) =>
  pairs.map(([from, to]) => [engine.name, from, to, engine] as const),
);

describe('createResampler', () => {
  // In band = up to 90% of the lower Nyquist frequency. The sweep goes through in odd-sized
  // chunks, so a discontinuity at any boundary would show up as noise.
  it.each(cases)(
    '%s keeps a sine sweep above 60 dB SNR in band, %i Hz -> %i Hz',
    async (_name, from, to, engine) => {
      const seconds = 2;
      const topHz = 0.9 * (Math.min(from, to) / 2);
      const input = { data: float32ToPcm(sweep(from, seconds, 50, topHz)), sampleRateHz: from };
      const expected = sweep(to, seconds, 50, topHz);
      const resampler = await createResampler(from, to, engine.options);
      expect(resampler).toBeInstanceOf(engine.type);
      const parts = splitPcm(input, from).map((chunk) => resampler.push(chunk.data));
      parts.push(resampler.flush());
      resampler.destroy();
      const output = pcmToFloat32(Buffer.concat(parts));

      expect(output.length).toBe(Math.round((input.data.byteLength / 2) * (to / from)));
      expect(snrDb(expected, output, Math.round(to * 0.01))).toBeGreaterThanOrEqual(60);
    },
  );

  it.each(cases)(
    '%s gives the same bytes pushed whole or in random chunks, %i Hz -> %i Hz',
    async (_name, from, to, engine) => {
      // 3 s: a whole push spans several polyphase kernel calls (16,384 input samples each).
      const input = { data: float32ToPcm(sweep(from, 3, 100, 0.45 * from)), sampleRateHz: from };
      const whole = await createResampler(from, to, engine.options);
      const expected = Buffer.concat([whole.push(input.data), whole.flush()]);
      expect(expected.byteLength / 2).toBe(Math.round(((input.data.byteLength / 2) * to) / from));
      for (const [seed, maxSamples] of [
        [7, 5],
        [3, 700],
        [11, 20000],
      ] as const) {
        const chunked = await createResampler(from, to, engine.options);
        const parts = splitPcm(input, seed, maxSamples).map((chunk) => chunked.push(chunk.data));
        parts.push(chunked.flush());
        expect(Buffer.concat(parts).equals(expected)).toBe(true);
      }
    },
  );

  it('resets on flush so one resampler can run a second stream', async () => {
    const input = float32ToPcm(sweep(24000, 0.3, 100, 5000));
    const resampler = await createResampler(24000, 16000);
    const first = Buffer.concat([resampler.push(input), resampler.flush()]);
    const second = Buffer.concat([resampler.push(input), resampler.flush()]);
    expect(second.equals(first)).toBe(true);
  });

  it('accepts buffers at odd byte offsets (pooled Node buffers)', async () => {
    const input = float32ToPcm(sweep(22050, 0.1, 100, 5000));
    const shifted = Buffer.alloc(input.byteLength + 1).subarray(1);
    input.copy(shifted);
    const a = await createResampler(22050, 24000);
    const b = await createResampler(22050, 24000);
    expect(Buffer.concat([a.push(shifted), a.flush()])).toEqual(
      Buffer.concat([b.push(input), b.flush()]),
    );
  });

  it('is a pass-through at equal rates', async () => {
    const resampler = await createResampler(24000, 24000);
    expect(resampler).toBeInstanceOf(PassThroughResampler);
    const input = float32ToPcm(sweep(24000, 0.1, 100, 5000));
    expect(resampler.push(input)).toBe(input);
    expect(resampler.flush().byteLength).toBe(0);
  });

  it('rejects impossible rates with a typed error', async () => {
    await expect(createResampler(0, 16000)).rejects.toMatchObject({
      kind: 'resampler_failed',
    });
    await expect(createResampler(22050.5, 16000)).rejects.toBeInstanceOf(MediaError);
    await expect(createResampler(22050, 16000, { quality: 11 })).rejects.toBeInstanceOf(MediaError);
  });

  it('throws after destroy instead of touching freed memory', async () => {
    const resampler = await createResampler(22050, 16000);
    resampler.destroy();
    expect(() => resampler.push(Buffer.alloc(4))).toThrow(MediaError);
  });
});
