import { describe, expect, it } from 'vitest';
import { KOKORO_VOICES } from '../../../src/providers/kokoro/voices.ts';
import { NATIVE_VOICES } from '../../../src/providers/native/voices.ts';
import { userSpeechLanguage } from '../../../worker/stt/language.ts';

const voice = (name: string) => {
  const found = [...NATIVE_VOICES, ...KOKORO_VOICES].find((v) => v.name.startsWith(name));
  if (!found) throw new Error(`no built-in voice ${name}`);
  return found.id;
};

describe("the recognizer's language", () => {
  it("is the built-in voice's language when STT_LANGUAGE is unset", () => {
    expect(userSpeechLanguage(undefined, voice('Aria (US English)'))).toBe('en');
    expect(userSpeechLanguage(undefined, voice('Sienna (UK English)'))).toBe('en');
    expect(userSpeechLanguage(undefined, voice('Mateo (Spanish, Latin America)'))).toBe('es');
    expect(userSpeechLanguage(undefined, voice('Camille (French)'))).toBe('fr');
    expect(userSpeechLanguage(undefined, voice('Mei (Mandarin Chinese)'))).toBe('zh');
    expect(userSpeechLanguage(undefined, voice('Yui (Japanese)'))).toBe('ja');
    expect(userSpeechLanguage(undefined, voice('Heart (US English, neural)'))).toBe('en');
    expect(userSpeechLanguage(undefined, voice('Dora (Brazilian Portuguese, neural)'))).toBe('pt');
  });

  it("is a cloned voice's recording language when they all share one", () => {
    const cloned = 'voice_notABuiltInVoice0000';
    expect(userSpeechLanguage(undefined, cloned, ['de-DE'])).toBe('de');
    expect(userSpeechLanguage(undefined, cloned, ['en-GB', 'en-US'])).toBe('en');
    expect(userSpeechLanguage(undefined, cloned, ['en-US', 'zh-CN'])).toBeUndefined();
    // A built-in voice is known by itself.
    expect(userSpeechLanguage(undefined, voice('Aria (US English)'), ['fr-FR'])).toBe('en');
  });

  it('is detected for voices whose language is not known (imported, vendor)', () => {
    expect(userSpeechLanguage(undefined, 'voice_notABuiltInVoice0000')).toBeUndefined();
    expect(userSpeechLanguage(undefined, 'voice_notABuiltInVoice0000', [])).toBeUndefined();
  });

  it('follows STT_LANGUAGE when set, auto meaning detection', () => {
    expect(userSpeechLanguage('de', voice('Aria (US English)'))).toBe('de');
    expect(userSpeechLanguage('auto', voice('Aria (US English)'))).toBeUndefined();
    expect(userSpeechLanguage('ja', 'voice_notABuiltInVoice0000')).toBe('ja');
    expect(userSpeechLanguage('auto', 'voice_notABuiltInVoice0000', ['de-DE'])).toBeUndefined();
  });
});
