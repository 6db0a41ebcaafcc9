import { NATIVE_OUTPUT_FORMATS, type NativeVoice } from '../native/voices.ts';

/** Kokoro-82M's native output rate. */
export const KOKORO_SAMPLE_RATE_HZ = 24_000;

/**
 * espeak-ng voice of each catalog language, as Kokoro's reference pipeline (hexgrad/kokoro
 * `LANG_CODES`) phonemises it.
 */
const PHONEME_LANGUAGES = {
  'en-US': 'en-us',
  'en-GB': 'en-gb',
  'es-ES': 'es',
  'fr-FR': 'fr-fr',
  'it-IT': 'it',
  'pt-BR': 'pt-br',
} as const;

/** The espeak-ng languages the neural voices are phonemised in. */
export type KokoroPhonemeLanguage = (typeof PHONEME_LANGUAGES)[keyof typeof PHONEME_LANGUAGES];

/** A neural voice: the native voice shape, with the Kokoro style-vector name as route. */
export interface KokoroVoice extends NativeVoice {
  /** espeak-ng language of the phonemes fed to the model. */
  readonly phonemeLanguage: KokoroPhonemeLanguage;
}

function seed(
  id: string,
  slug: string,
  name: string,
  language: keyof typeof PHONEME_LANGUAGES,
  style: string,
): KokoroVoice {
  return Object.freeze({
    id,
    slug,
    name,
    language,
    providerVoiceId: style,
    phonemeLanguage: PHONEME_LANGUAGES[language],
    nativeSampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    outputFormats: NATIVE_OUTPUT_FORMATS,
    capabilities: ['tts'] as const,
    nsfw: false,
  });
}

/*
 * Which of the 54 Kokoro voices we ship (see docs/decisions.md, "Neural voices"):
 * - American and British English: espeak-ng IPA with kokoro-js's English normaliser.
 * - Spanish, French, Italian and Brazilian Portuguese: espeak-ng IPA mapped as misaki's
 *   `EspeakG2P` does (Kokoro's reference pipeline for them); each voice was checked with
 *   the embedded Whisper at a word error rate of at most 15%. The Santa voices are left out
 *   (a novelty character).
 * - Left out: Hindi (Whisper base cannot transcribe it, so it is unchecked), Japanese and
 *   Mandarin (they need misaki's own G2P, pyopenjtalk and jieba, not espeak-ng).
 * - English voices graded C- or better in Kokoro's VOICES.md (as listed in kokoro-js); the
 *   D and F voices sound noticeably synthetic.
 * Ids are `voice_` + the first 20 base62 characters of sha256(`awp/voices/builtin/<slug>/v1`),
 * written out literally so they never change.
 */
/** The neural voices, in display order (best graded first within each language). */
export const KOKORO_VOICES: readonly KokoroVoice[] = [
  seed(
    'voice_AG63NAA6qYXtuK33ioJM',
    'kokoro-af-heart',
    'Heart (US English, neural)',
    'en-US',
    'af_heart',
  ),
  seed(
    'voice_c8qd0kY2o6RRDQRzajTx',
    'kokoro-af-bella',
    'Bella (US English, neural)',
    'en-US',
    'af_bella',
  ),
  seed(
    'voice_LV53gK5Ub0JoyulC3x7T',
    'kokoro-af-nicole',
    'Nicole (US English, neural)',
    'en-US',
    'af_nicole',
  ),
  seed(
    'voice_oZaThJIrs07LMU5LHWcq',
    'kokoro-af-aoede',
    'Aoede (US English, neural)',
    'en-US',
    'af_aoede',
  ),
  seed(
    'voice_ymnuQ2zj9X9R3VtDMxQN',
    'kokoro-af-kore',
    'Kore (US English, neural)',
    'en-US',
    'af_kore',
  ),
  seed(
    'voice_QcnnBUehCmftOlKGhbLv',
    'kokoro-af-sarah',
    'Sarah (US English, neural)',
    'en-US',
    'af_sarah',
  ),
  seed(
    'voice_mJyBtBx9QEgim5dyYdQi',
    'kokoro-af-nova',
    'Nova (US English, neural)',
    'en-US',
    'af_nova',
  ),
  seed(
    'voice_fuEpyHNMVNfMhiRuLFlF',
    'kokoro-af-alloy',
    'Alloy (US English, neural)',
    'en-US',
    'af_alloy',
  ),
  seed(
    'voice_KpZNLzpYeWEdsd42p9SM',
    'kokoro-af-sky',
    'Sky (US English, neural)',
    'en-US',
    'af_sky',
  ),
  seed(
    'voice_X6ZXphvPdTKfCer4oRBS',
    'kokoro-am-fenrir',
    'Fenrir (US English, neural)',
    'en-US',
    'am_fenrir',
  ),
  seed(
    'voice_RtD9JkMNLzRXJDmeE0Ig',
    'kokoro-am-michael',
    'Michael (US English, neural)',
    'en-US',
    'am_michael',
  ),
  seed(
    'voice_ec2r1b3GtPAPLnyfiVwj',
    'kokoro-am-puck',
    'Puck (US English, neural)',
    'en-US',
    'am_puck',
  ),
  seed(
    'voice_IPgaRqXVncnFQQNW2wqB',
    'kokoro-bf-emma',
    'Emma (UK English, neural)',
    'en-GB',
    'bf_emma',
  ),
  seed(
    'voice_INQx3NUrDtxQQQUfNmMt',
    'kokoro-bf-isabella',
    'Isabella (UK English, neural)',
    'en-GB',
    'bf_isabella',
  ),
  seed(
    'voice_hav5WbXAWimDy5RvrEl3',
    'kokoro-bm-george',
    'George (UK English, neural)',
    'en-GB',
    'bm_george',
  ),
  seed(
    'voice_90wEOKBNX1IIzkQB0DjG',
    'kokoro-bm-fable',
    'Fable (UK English, neural)',
    'en-GB',
    'bm_fable',
  ),
  seed(
    'voice_lkEd6JcE932FhdxBeK4q',
    'kokoro-ef-dora',
    'Dora (Spanish, neural)',
    'es-ES',
    'ef_dora',
  ),
  seed(
    'voice_MBQNDBMwiG2Q3AiBLIt7',
    'kokoro-em-alex',
    'Alex (Spanish, neural)',
    'es-ES',
    'em_alex',
  ),
  seed(
    'voice_GMgIQ3mNYdo0CbKJvX8j',
    'kokoro-ff-siwis',
    'Siwis (French, neural)',
    'fr-FR',
    'ff_siwis',
  ),
  seed(
    'voice_ZJmQJa2AbxLLn2hZKoQ4',
    'kokoro-if-sara',
    'Sara (Italian, neural)',
    'it-IT',
    'if_sara',
  ),
  seed(
    'voice_KjEM5NSVb57T7cGF0W6e',
    'kokoro-im-nicola',
    'Nicola (Italian, neural)',
    'it-IT',
    'im_nicola',
  ),
  seed(
    'voice_BP9oOLCez0EXIoy9GGqD',
    'kokoro-pf-dora',
    'Dora (Brazilian Portuguese, neural)',
    'pt-BR',
    'pf_dora',
  ),
  seed(
    'voice_mOkVV1dP6VtKkxo0Xbyc',
    'kokoro-pm-alex',
    'Alex (Brazilian Portuguese, neural)',
    'pt-BR',
    'pm_alex',
  ),
];

const BY_ID = new Map(KOKORO_VOICES.map((voice) => [voice.id, voice]));
const BY_STYLE = new Map(KOKORO_VOICES.map((voice) => [voice.providerVoiceId, voice]));

/** The neural voice with public id `id`, or undefined. */
export function findKokoroVoice(id: string): KokoroVoice | undefined {
  return BY_ID.get(id);
}

/** The neural voice whose style vector is `style` (the route's provider voice id). */
export function kokoroVoiceByStyle(style: string): KokoroVoice | undefined {
  return BY_STYLE.get(style);
}
