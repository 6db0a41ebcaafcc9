import type { OutputFormat } from '../../../../media/formats.ts';
import type { UpstreamModelInfo } from '../upstream/model-info.ts';

/** ElevenLabs models a route may use. */
export type ElevenLabsModelId = 'eleven_multilingual_v2' | 'eleven_v3';

/** One ElevenLabs model: what routes on it advertise and how the adapter talks to it. */
export interface ElevenLabsModelInfo extends UpstreamModelInfo {
  readonly model: ElevenLabsModelId;
  /** Per-request text limit in characters; longer text is split on sentence boundaries. */
  readonly maxCharsPerRequest: number;
  /** Whether the model reads inline bracketed audio tags (`[whispers]`). */
  readonly inlineTags: boolean;
}

/**
 * Raw PCM rates the streaming endpoint offers as `output_format=pcm_<rate>` (s16le mono,
 * no header). pcm_44100 needs a Pro plan or above.
 */
export const ELEVENLABS_PCM_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;

/**
 * Formats an ElevenLabs route may advertise. The vendor produces each natively (PCM at the
 * exact rate, opus_48000_64 as a vendor format, which we encode from its 48 kHz PCM).
 * AAC is absent: ElevenLabs offers MP3, not AAC.
 */
export const ELEVENLABS_OUTPUT_FORMATS = [
  'pcm_16000',
  'pcm_24000',
  'pcm_44100',
  'pcm_48000',
  'opus_48000_64',
] as const satisfies readonly OutputFormat[];

/**
 * The models and their limits. Multilingual v2 accepts 10,000 characters per request and
 * ignores audio tags; v3 accepts 5,000 characters and reads inline `[tag]` cues.
 */
export const ELEVENLABS_MODELS: { readonly [M in ElevenLabsModelId]: ElevenLabsModelInfo } = {
  eleven_multilingual_v2: {
    model: 'eleven_multilingual_v2',
    capabilities: ['tts', 'word_alignment', 'char_alignment'],
    outputFormats: ELEVENLABS_OUTPUT_FORMATS,
    nativeSampleRates: ELEVENLABS_PCM_RATES,
    maxCharsPerRequest: 10_000,
    inlineTags: false,
  },
  eleven_v3: {
    model: 'eleven_v3',
    capabilities: ['tts', 'voice_tags', 'word_alignment', 'char_alignment'],
    outputFormats: ELEVENLABS_OUTPUT_FORMATS,
    nativeSampleRates: ELEVENLABS_PCM_RATES,
    maxCharsPerRequest: 5_000,
    inlineTags: true,
  },
};

/** The model a route names, undefined when this adapter does not know it. */
export function findElevenLabsModel(model: string): ElevenLabsModelInfo | undefined {
  return Object.hasOwn(ELEVENLABS_MODELS, model)
    ? ELEVENLABS_MODELS[model as ElevenLabsModelId]
    : undefined;
}
