import type { VoiceCapability } from '../provider.ts';

/** Output formats every native voice delivers (the spec: native voices never offer pcm_16000). */
export const NATIVE_OUTPUT_FORMATS = [
  'pcm_24000',
  'pcm_44100',
  'pcm_48000',
  'aac_44100_128',
  'opus_48000_64',
] as const;

export type NativeOutputFormat = (typeof NATIVE_OUTPUT_FORMATS)[number];

/** Sample rate espeak-ng produces; the media pipeline resamples to the requested format. */
export const NATIVE_SAMPLE_RATE_HZ = 22_050;

/** One built-in voice of the native model. */
export interface NativeVoice {
  /**
   * Stable public id: `voice_` + the first 20 base62 characters of
   * sha256(`awp/voices/builtin/<slug>/v1`). Written out literally so it never changes.
   */
  readonly id: string;
  /** Seed slug the id was derived from; internal. */
  readonly slug: string;
  /** Human display name. */
  readonly name: string;
  /** BCP 47 language tag of the text the voice is meant to read. */
  readonly language: string;
  /** espeak-ng voice string (`-v`), never shown to clients. */
  readonly providerVoiceId: string;
  readonly nativeSampleRateHz: number;
  readonly outputFormats: readonly NativeOutputFormat[];
  readonly capabilities: readonly VoiceCapability[];
  readonly nsfw: boolean;
}

type VoiceSeed = Pick<NativeVoice, 'id' | 'slug' | 'name' | 'language' | 'providerVoiceId'>;

/*
 * Notes on the espeak-ng voice strings (espeak-ng 1.51, Debian 12):
 * - `+f3`, `+m3`, ... are espeak variants (speaker timbre) layered on a language voice.
 * - Mandarin uses `cmn-latn-pinyin`: the plain `cmn` voice of 1.51 turns each Han character
 *   into pinyin and then reads the tone digits as English numbers ("ni three"); see
 *   espeak-ng issue #1236. `cmn-latn-pinyin` reads Han characters correctly.
 * - Japanese (`ja`) reads kana only: kanji are spelled out as "Chinese letter" in English.
 */
const SEEDS: readonly VoiceSeed[] = [
  {
    id: 'voice_en0ITv6xOZPfMiT0sGIW',
    slug: 'aria',
    name: 'Aria (US English)',
    language: 'en-US',
    providerVoiceId: 'en-us+f3',
  },
  {
    id: 'voice_UC6FCm3SL2jYFHUhDgD0',
    slug: 'jasper',
    name: 'Jasper (US English)',
    language: 'en-US',
    providerVoiceId: 'en-us+m3',
  },
  {
    id: 'voice_mA5uBfSbNh9zUbB5MiWM',
    slug: 'sienna',
    name: 'Sienna (UK English)',
    language: 'en-GB',
    providerVoiceId: 'en-gb+f4',
  },
  {
    id: 'voice_jZr4qTey843mDiajMnfi',
    slug: 'arthur',
    name: 'Arthur (UK English)',
    language: 'en-GB',
    providerVoiceId: 'en-gb+m3',
  },
  {
    id: 'voice_1kTQF0EEdlby2nSFFDuZ',
    slug: 'lucia',
    name: 'Lucía (Spanish, Spain)',
    language: 'es-ES',
    providerVoiceId: 'es+f3',
  },
  {
    id: 'voice_8cLgBeEHKPajNO4zOV04',
    slug: 'mateo',
    name: 'Mateo (Spanish, Latin America)',
    language: 'es-419',
    providerVoiceId: 'es-419+m3',
  },
  {
    id: 'voice_Q3YBJfXnGu5jE6L5Mo4B',
    slug: 'camille',
    name: 'Camille (French)',
    language: 'fr-FR',
    providerVoiceId: 'fr-fr+f2',
  },
  {
    id: 'voice_FoZusUtsN2WQOKuaFRDM',
    slug: 'lukas',
    name: 'Lukas (German)',
    language: 'de-DE',
    providerVoiceId: 'de+m3',
  },
  {
    id: 'voice_mUwNNTqHYPLG3LH5UinB',
    slug: 'mei',
    name: 'Mei (Mandarin Chinese)',
    language: 'zh-CN',
    providerVoiceId: 'cmn-latn-pinyin+f3',
  },
  {
    id: 'voice_BZGdAkSjQhl08Bc3YGp3',
    slug: 'yui',
    name: 'Yui (Japanese)',
    language: 'ja-JP',
    providerVoiceId: 'ja+f3',
  },
];

/** The built-in catalog of native voices, in display order. */
export const NATIVE_VOICES: readonly NativeVoice[] = SEEDS.map((seed) =>
  Object.freeze({
    ...seed,
    nativeSampleRateHz: NATIVE_SAMPLE_RATE_HZ,
    outputFormats: NATIVE_OUTPUT_FORMATS,
    capabilities: ['tts'] as const,
    nsfw: false,
  }),
);

const BY_ID = new Map(NATIVE_VOICES.map((voice) => [voice.id, voice]));

/** The native voice with public id `id`, or undefined. */
export function findNativeVoice(id: string): NativeVoice | undefined {
  return BY_ID.get(id);
}
