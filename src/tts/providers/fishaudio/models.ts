import type { OutputFormat } from '../../../../media/formats.ts';
import type { UpstreamModelInfo } from '../upstream/model-info.ts';

/** Fish Audio TTS models a route may use (sent as the `model` request header). */
export type FishAudioModelId = 's1' | 's2-pro' | 's2.1-pro' | 's2.1-pro-free';

/** How a model reads inline expressive cues. */
export type FishAudioTagStyle =
  /** S1: a fixed set of emotion and tone names in parentheses, `(whispering) text`. */
  | 'parentheses'
  /** S2 family: free-form natural-language cues in square brackets, `[whispering] text`. */
  | 'brackets';

/** One Fish Audio model: what routes on it advertise and how tags are written for it. */
export interface FishAudioModelInfo extends UpstreamModelInfo {
  readonly model: FishAudioModelId;
  readonly tagStyle: FishAudioTagStyle;
}

/** Rates of Fish Audio's headerless `format: "pcm"` output (s16le mono). */
export const FISHAUDIO_PCM_RATES = [8000, 16000, 24000, 32000, 44100] as const;

/**
 * Formats a Fish Audio route may advertise: PCM at the rates Fish produces, and
 * opus_48000_64 (Fish offers 48 kHz Opus up to 64 kbps). pcm_48000 is absent because Fish
 * stops at 44.1 kHz; AAC is absent because Fish offers wav, pcm, mp3 and opus only.
 */
export const FISHAUDIO_OUTPUT_FORMATS = [
  'pcm_16000',
  'pcm_24000',
  'pcm_44100',
  'opus_48000_64',
] as const satisfies readonly OutputFormat[];

function model(id: FishAudioModelId, tagStyle: FishAudioTagStyle): FishAudioModelInfo {
  return {
    model: id,
    // The service advertises voice tags on the S2 family only; S1's parenthesised cues are
    // a fixed vocabulary, not the free-form natural-language tags clients send. Every model
    // times words on `/v1/tts/stream/with-timestamp`; none times characters.
    capabilities:
      tagStyle === 'brackets' ? ['tts', 'voice_tags', 'word_alignment'] : ['tts', 'word_alignment'],
    outputFormats: FISHAUDIO_OUTPUT_FORMATS,
    nativeSampleRates: FISHAUDIO_PCM_RATES,
    tagStyle,
  };
}

/** The models and the cue syntax each reads. */
export const FISHAUDIO_MODELS: { readonly [M in FishAudioModelId]: FishAudioModelInfo } = {
  s1: model('s1', 'parentheses'),
  's2-pro': model('s2-pro', 'brackets'),
  's2.1-pro': model('s2.1-pro', 'brackets'),
  's2.1-pro-free': model('s2.1-pro-free', 'brackets'),
};

/** The model a route names, undefined when this adapter does not know it. */
export function findFishAudioModel(id: string): FishAudioModelInfo | undefined {
  return Object.hasOwn(FISHAUDIO_MODELS, id) ? FISHAUDIO_MODELS[id as FishAudioModelId] : undefined;
}
