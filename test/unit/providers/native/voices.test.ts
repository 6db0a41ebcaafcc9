import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  findNativeVoice,
  NATIVE_VOICES,
  NativeProvider,
} from '../../../../src/tts/providers/native/index.ts';
import { collectAudio, peak, rms } from '../pcm-stats.ts';

/** One sentence per language, in the script espeak-ng reads for it. */
const SENTENCES: Record<string, string> = {
  en: 'The weather is lovely today, so we are going for a walk in the park.',
  es: 'Hoy hace muy buen tiempo, así que vamos a dar un paseo por el parque.',
  fr: "Il fait très beau aujourd'hui, alors nous allons nous promener dans le parc.",
  de: 'Heute ist das Wetter sehr schön, deshalb gehen wir im Park spazieren.',
  zh: '今天天气很好，我们去公园散步吧。',
  // espeak-ng reads Japanese kana only (kanji come out as "Chinese letter" in English).
  ja: 'きょうは とても いい てんき なので、こうえんを さんぽ しましょう。',
};

function sentenceFor(language: string): string {
  const sentence = SENTENCES[language.split('-')[0]!];
  if (sentence === undefined) throw new Error(`no test sentence for ${language}`);
  return sentence;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

describe('native voice catalog', () => {
  it('has at least eight voices covering the required languages', () => {
    expect(NATIVE_VOICES.length).toBeGreaterThanOrEqual(8);
    const languages = new Set(NATIVE_VOICES.map((voice) => voice.language));
    for (const tag of ['en-US', 'en-GB', 'es-ES', 'fr-FR', 'de-DE', 'zh-CN', 'ja-JP']) {
      expect(languages).toContain(tag);
    }
    expect(NATIVE_VOICES.filter((voice) => voice.language === 'en-US').length).toBeGreaterThan(1);
    expect(NATIVE_VOICES.filter((voice) => voice.language === 'en-GB').length).toBeGreaterThan(1);
  });

  it('keeps ids stable: voice_ + first 20 base62 chars of sha256 of the seed', () => {
    for (const voice of NATIVE_VOICES) {
      const digest = createHash('sha256').update(`awp/voices/builtin/${voice.slug}/v1`).digest();
      expect(voice.id).toBe(`voice_${base62(digest).slice(0, 20)}`);
      expect(voice.id).toMatch(/^voice_[0-9A-Za-z]{20}$/);
    }
    expect(new Set(NATIVE_VOICES.map((voice) => voice.id)).size).toBe(NATIVE_VOICES.length);
    expect(new Set(NATIVE_VOICES.map((voice) => voice.name)).size).toBe(NATIVE_VOICES.length);
  });

  it('describes every voice as the spec requires for the native model', () => {
    for (const voice of NATIVE_VOICES) {
      expect(voice.outputFormats).toEqual([
        'pcm_24000',
        'pcm_44100',
        'pcm_48000',
        'aac_44100_128',
        'opus_48000_64',
      ]);
      expect(voice.capabilities).toEqual(['tts']);
      expect(voice.nsfw).toBe(false);
      expect(voice.nativeSampleRateHz).toBe(22_050);
      expect(voice.language).toMatch(/^[a-z]{2,3}(-[A-Z]{2}|-\d{3})?$/);
      expect(`${voice.id} ${voice.name}`).not.toMatch(/espeak|native/i);
    }
  });

  it('looks voices up by id', () => {
    const [first] = NATIVE_VOICES;
    expect(findNativeVoice(first!.id)).toBe(first);
    expect(findNativeVoice('voice_unknown')).toBeUndefined();
  });

  it('names voices espeak-ng reads in their own language (no switch to English)', () => {
    for (const voice of NATIVE_VOICES) {
      if (voice.language.startsWith('en')) continue;
      const phonemes = execFileSync(
        'espeak-ng',
        ['-q', '-x', '--stdin', '-b', '1', '-v', voice.providerVoiceId],
        { input: sentenceFor(voice.language), encoding: 'utf8' },
      );
      expect(phonemes, voice.providerVoiceId).not.toContain('(en)');
    }
  });
});

describe('native voices synthesize', () => {
  const provider = new NativeProvider();

  for (const voice of NATIVE_VOICES) {
    it(`${voice.name} speaks a sentence in ${voice.language}`, async () => {
      const audio = await collectAudio(
        provider.synthesize(
          { text: sentenceFor(voice.language), providerVoiceId: voice.providerVoiceId },
          new AbortController().signal,
        ),
      );
      expect(audio.sampleRateHz).toBe(voice.nativeSampleRateHz);
      // A sentence of 10 to 15 words: a few seconds of speech.
      expect(audio.durationMs).toBeGreaterThan(1500);
      expect(audio.durationMs).toBeLessThan(12_000);
      expect(peak(audio.pcm)).toBeGreaterThan(2000);
      expect(rms(audio.pcm)).toBeGreaterThan(300);
    });
  }
});
