import { describe, expect, it } from 'vitest';
import { float32ToPcm, int16ToPcm, pcmToInt16 } from '../../../media/pcm.ts';
import { polyphaseBank, tapsPerPhaseFor } from '../../../media/polyphase-filter.ts';
import { PolyphaseResampler } from '../../../media/polyphase-resampler.ts';
import { createResampler } from '../../../media/resample.ts';
import { SpeexResampler } from '../../../media/speex-resampler.ts';

/** A sine of `frequencyHz` at `amplitude` (of full scale), `seconds` long. */
function tone(rateHz: number, seconds: number, frequencyHz: number, amplitude: number): Buffer {
  const out = new Float32Array(Math.round(rateHz * seconds));
  for (let i = 0; i < out.length; i++) {
    out[i] = amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / rateHz);
  }
  return float32ToPcm(out);
}

function rms(samples: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! ** 2;
  return Math.sqrt(sum / (to - from));
}

async function resampleAll(pcm: Buffer, fromHz: number, toHz: number): Promise<Int16Array> {
  const resampler = await createResampler(fromHz, toHz);
  const out = Buffer.concat([resampler.push(pcm), resampler.flush()]);
  resampler.destroy();
  return pcmToInt16(Buffer.from(out));
}

describe('PolyphaseResampler', () => {
  it('serves every ratio between the service rates and leaves awkward ones to Speex', async () => {
    for (const [from, to] of [
      [22050, 24000],
      [22050, 48000],
      [24000, 16000],
      [44100, 48000],
      [48000, 8000],
    ] as const) {
      expect(await createResampler(from, to)).toBeInstanceOf(PolyphaseResampler);
    }
    // 44,101 and 48,000 share no factor: 48,000 phases would need a bank of millions of taps.
    expect(polyphaseBank(44101, 48000)).toBeNull();
    const odd = await createResampler(44101, 48000);
    expect(odd).toBeInstanceOf(SpeexResampler);
    const out = Buffer.concat([odd.push(tone(44101, 0.5, 440, 0.5)), odd.flush()]);
    expect(out.byteLength / 2).toBe(Math.round((Math.round(44101 * 0.5) * 48000) / 44101));
  });

  it('matches a double-precision evaluation of its own filter bank within one step', async () => {
    // A full-scale square wave overshoots the int16 range after filtering: the output must
    // saturate exactly like the reference, never wrap around.
    const fromHz = 22050;
    const toHz = 48000;
    const input = new Int16Array(fromHz / 2);
    for (let i = 0; i < input.length; i++) input[i] = Math.floor(i / 20) % 2 === 0 ? 32767 : -32768;
    const output = await resampleAll(int16ToPcm(input), fromHz, toHz);

    const bank = polyphaseBank(fromHz, toHz)!;
    const { taps, tapsPerPhase, upFactor, downFactor } = bank;
    expect(output.length).toBe(Math.round((input.length * toHz) / fromHz));
    let worst = 0;
    let clamped = 0;
    for (let n = 0; n < output.length; n++) {
      const index = Math.floor((n * downFactor) / upFactor);
      const phase = (n * downFactor) % upFactor;
      let sum = 0;
      for (let j = 0; j < tapsPerPhase; j++) {
        const k = index - tapsPerPhase / 2 + 1 + j;
        if (k >= 0 && k < input.length) sum += input[k]! * taps[phase * tapsPerPhase + j]!;
      }
      const expected = Math.min(32767, Math.max(-32768, Math.round(sum)));
      if (expected === 32767 || expected === -32768) clamped++;
      worst = Math.max(worst, Math.abs(expected - output[n]!));
    }
    expect(clamped).toBeGreaterThan(100);
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('keeps a constant level constant (every phase has unit gain)', async () => {
    const output = await resampleAll(int16ToPcm(new Int16Array(22050).fill(30000)), 22050, 24000);
    const edge = tapsPerPhaseFor(22050, 24000);
    expect(new Set(output.subarray(edge, output.length - edge))).toEqual(new Set([30000]));
  });

  it.each([
    [48000, 16000],
    [24000, 16000],
    [44100, 22050],
    [48000, 24000],
    [22050, 8000],
  ])(
    'attenuates tones above the output Nyquist frequency by 60 dB or more, %i Hz -> %i Hz',
    async (from, to) => {
      for (const fraction of [1.01, 1.2, 1.9]) {
        const frequencyHz = (fraction * to) / 2;
        if (frequencyHz >= from / 2) continue;
        const output = await resampleAll(tone(from, 1, frequencyHz, 0.5), from, to);
        const level = rms(output, to / 10, output.length - to / 10) / (0.5 * 32768 * Math.SQRT1_2);
        expect(20 * Math.log10(level), `${frequencyHz} Hz`).toBeLessThanOrEqual(-60);
      }
    },
  );

  it('keeps the stream time-aligned: a tone keeps its phase through 22,050 -> 24,000', async () => {
    const output = await resampleAll(tone(22050, 1, 1000, 0.5), 22050, 24000);
    const expected = pcmToInt16(tone(24000, 1, 1000, 0.5));
    let worst = 0;
    for (let i = 2400; i < output.length - 2400; i++) {
      worst = Math.max(worst, Math.abs(output[i]! - expected[i]!));
    }
    // 70 dB below a half-scale tone is about 5 steps; a one-sample shift would be ~4,000.
    expect(worst).toBeLessThanOrEqual(8);
  });
});
