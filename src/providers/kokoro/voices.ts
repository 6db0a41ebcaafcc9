import { NATIVE_OUTPUT_FORMATS, type NativeVoice } from '../native/voices.ts';

/** Kokoro-82M's native output rate. */
export const KOKORO_SAMPLE_RATE_HZ = 24_000;

/** A neural voice: the native voice shape, with the Kokoro style-vector name as route. */
export interface KokoroVoice extends NativeVoice {
  /** espeak-ng language of the phonemes fed to the model (`en-us` or `en-gb`). */
  readonly phonemeLanguage: 'en-us' | 'en-gb';
}

function seed(
  id: string,
  slug: string,
  name: string,
  language: string,
  style: string,
): KokoroVoice {
  return Object.freeze({
    id,
    slug,
    name,
    language,
    providerVoiceId: style,
    phonemeLanguage: language === 'en-GB' ? 'en-gb' : 'en-us',
    nativeSampleRateHz: KOKORO_SAMPLE_RATE_HZ,
    outputFormats: NATIVE_OUTPUT_FORMATS,
    capabilities: ['tts'] as const,
    nsfw: false,
  });
}

/*
 * Which of the 54 Kokoro voices we ship (see docs/decisions.md, "Neural voices"):
 * - American and British English only: the phoneme front end is espeak-ng IPA with
 *   kokoro-js's English normaliser, which is what those voices were trained against.
 *   Japanese and Mandarin need misaki's own G2P (pyopenjtalk, jieba), not espeak-ng;
 *   es/fr/it/pt/hi are left out until the embedded speech-to-text can check them.
 * - Voices graded C- or better in Kokoro's VOICES.md (as listed in kokoro-js); the D and
 *   F voices sound noticeably synthetic.
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
