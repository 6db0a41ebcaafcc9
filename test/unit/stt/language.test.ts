import { describe, expect, it } from 'vitest';
import { userSpeechLanguage } from '../../../src/stt/language.ts';
import { KOKORO_VOICES } from '../../../src/tts/providers/kokoro/voices.ts';
import { NATIVE_VOICES } from '../../../src/tts/providers/native/voices.ts';

const voice = (name: string) => {
  const found = [...NATIVE_VOICES, ...KOKORO_VOICES].find((v) => v.name.startsWith(name));
  if (!found) throw new Error(`no built-in voice ${name}`);
  return found.id;
};

const CLONED = 'voice_notABuiltInVoice0000';

/** A voice's recording languages, counting how often they were asked for. */
function recordings(languages: string[]) {
  const asked = { count: 0 };
  const read = async () => {
    asked.count += 1;
    return languages;
  };
  return Object.assign(read, { asked });
}

describe("the recognizer's language", () => {
  it("is the Agent's own language when it has one, over STT_LANGUAGE and the voice", async () => {
    const none = recordings(['fr-FR']);
    expect(await userSpeechLanguage(undefined, voice('Aria (US English)'), none, 'es-MX')).toBe(
      'es',
    );
    expect(await userSpeechLanguage('auto', CLONED, none, 'zh-Hans-CN')).toBe('zh');
    expect(await userSpeechLanguage('de', CLONED, none, 'yue')).toBe('yue');
    expect(none.asked.count).toBe(0);
    // Without one, the rules below.
    expect(await userSpeechLanguage(undefined, voice('Aria (US English)'), none, null)).toBe('en');
  });

  it("is the built-in voice's language when STT_LANGUAGE is unset, without reading recordings", async () => {
    const none = recordings(['fr-FR']);
    const of = (name: string) => userSpeechLanguage(undefined, voice(name), none);
    expect(await of('Aria (US English)')).toBe('en');
    expect(await of('Sienna (UK English)')).toBe('en');
    expect(await of('Mateo (Spanish, Latin America)')).toBe('es');
    expect(await of('Camille (French)')).toBe('fr');
    expect(await of('Mei (Mandarin Chinese)')).toBe('zh');
    expect(await of('Yui (Japanese)')).toBe('ja');
    expect(await of('Heart (US English, neural)')).toBe('en');
    expect(await of('Dora (Brazilian Portuguese, neural)')).toBe('pt');
    expect(none.asked.count).toBe(0);
  });

  it("is a cloned voice's recording language when they all share one", async () => {
    expect(await userSpeechLanguage(undefined, CLONED, recordings(['de-DE']))).toBe('de');
    expect(await userSpeechLanguage(undefined, CLONED, recordings(['en-GB', 'en-US']))).toBe('en');
    expect(
      await userSpeechLanguage(undefined, CLONED, recordings(['en-US', 'zh-CN'])),
    ).toBeUndefined();
  });

  it('is detected for voices whose language is not known (imported, vendor)', async () => {
    const none = recordings([]);
    expect(await userSpeechLanguage(undefined, CLONED, none)).toBeUndefined();
    expect(none.asked.count).toBe(1);
  });

  it('follows STT_LANGUAGE when set, auto meaning detection, without reading recordings', async () => {
    const german = recordings(['de-DE']);
    expect(await userSpeechLanguage('de', voice('Aria (US English)'), german)).toBe('de');
    expect(await userSpeechLanguage('auto', voice('Aria (US English)'), german)).toBeUndefined();
    expect(await userSpeechLanguage('ja', CLONED, german)).toBe('ja');
    expect(await userSpeechLanguage('auto', CLONED, german)).toBeUndefined();
    expect(german.asked.count).toBe(0);
  });
});
