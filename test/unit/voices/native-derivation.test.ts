import { describe, expect, it } from 'vitest';
import { deriveNativeVoice, measureVoice } from '../../../src/voices/cloning/native-derivation.ts';
import { decodeForAnalysis } from '../../../src/voices/cloning/sample-audio.ts';
import { runProcess } from '../../helpers/audio.ts';

const SENTENCE =
  'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the quiet hills.';

async function espeakRecording(voice: string, pitch: number, wpm: number): Promise<Buffer> {
  const result = await runProcess('espeak-ng', [
    '--stdout',
    '-v',
    voice,
    '-p',
    String(pitch),
    '-s',
    String(wpm),
    SENTENCE,
  ]);
  if (result.code !== 0) throw new Error(result.stderr);
  return result.stdout;
}

async function derive(voice: string, pitch: number, wpm: number) {
  const pcm = await decodeForAnalysis(await espeakRecording(voice, pitch, wpm));
  return deriveNativeVoice(await measureVoice([{ pcm, transcript: SENTENCE }]), 'en-US');
}

function parse(reference: string) {
  const match = /^(.+)\/p(\d+)\/w(\d+)$/.exec(reference);
  if (!match) throw new Error(`unexpected reference ${reference}`);
  return { voice: match[1], pitch: Number(match[2]), wpm: Number(match[3]) };
}

describe('native voice derivation', () => {
  it.each([
    ['en-us+m3', 20, 150],
    ['en-us+m3', 50, 150],
    ['en-us+f3', 50, 150],
    ['en-us+f3', 80, 150],
    ['en-us+m3', 40, 220],
  ])(
    'maps a recording of %s -p %i -s %i back onto its own parameters',
    async (voice, pitch, wpm) => {
      const derived = parse((await derive(voice, pitch, wpm)).reference);
      expect(derived.voice).toBe(voice);
      expect(Math.abs(derived.pitch - pitch)).toBeLessThanOrEqual(6);
      expect(Math.abs(derived.wpm - wpm) / wpm).toBeLessThan(0.12);
    },
  );

  it('tells a low voice from a high one and a slow speaker from a fast one', async () => {
    const low = parse((await derive('en-us+m3', 30, 120)).reference);
    const high = parse((await derive('en-us+f3', 70, 240)).reference);
    expect(low.voice).toBe('en-us+m3');
    expect(high.voice).toBe('en-us+f3');
    expect(high.wpm).toBeGreaterThan(low.wpm * 1.6);
  });

  it('chooses the language voice from the recordings language', () => {
    const measured = { medianPitchHz: 210, wordsPerMinute: 180, voicedFrames: 100 };
    expect(deriveNativeVoice(measured, 'en-GB').reference).toMatch(/^en-gb\+f3\//);
    expect(deriveNativeVoice(measured, 'ja').reference).toMatch(/^ja\+f3\//);
    expect(deriveNativeVoice(measured, 'zh-CN').reference).toMatch(/^cmn-latn-pinyin\+f3\//);
  });
});
