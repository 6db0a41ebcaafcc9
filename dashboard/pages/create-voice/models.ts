/**
 * What the service clones onto and imports with. These mirror the server's tables
 * (`RECOMMENDED_MODELS` in src/voices/cloning/checks.ts, the ElevenLabs and Fish Audio model
 * tables under src/tts/providers/); the dashboard's browser test checks that they agree.
 */

/** Where a new voice can be cloned to. */
export type CloneProvider = 'elevenlabs' | 'fishaudio' | 'native';
/** Vendors whose accounts hold voices and API keys. */
export type VendorProvider = Exclude<CloneProvider, 'native'>;

export const CLONE_PROVIDERS: readonly CloneProvider[] = ['elevenlabs', 'fishaudio', 'native'];
export const VENDOR_PROVIDERS: readonly VendorProvider[] = ['elevenlabs', 'fishaudio'];

export const PROVIDER_NAMES: Readonly<Record<CloneProvider, string>> = {
  elevenlabs: 'ElevenLabs',
  fishaudio: 'Fish Audio',
  native: 'Native (on this server)',
};

/** The model each provider clones onto (spec rule 6: each uses its recommended model). */
export const RECOMMENDED_MODELS: Readonly<Record<CloneProvider, string>> = {
  elevenlabs: 'eleven_multilingual_v2',
  fishaudio: 's2.1-pro',
  native: 'espeak-ng-derived',
};

/** One model a route can use, and whether it reads emotion tags such as `[whispers]`. */
export interface RouteModel {
  id: string;
  emotionTags: boolean;
}

/** The models an imported route may name, per vendor (S2 family and v3 read emotion tags). */
export const ROUTE_MODELS: Readonly<Record<CloneProvider, readonly RouteModel[]>> = {
  elevenlabs: [
    { id: 'eleven_multilingual_v2', emotionTags: false },
    { id: 'eleven_v3', emotionTags: true },
  ],
  fishaudio: [
    { id: 's1', emotionTags: false },
    { id: 's2-pro', emotionTags: true },
    { id: 's2.1-pro', emotionTags: true },
    { id: 's2.1-pro-free', emotionTags: true },
  ],
  native: [{ id: 'espeak-ng-derived', emotionTags: false }],
};

/** True when `model` on `provider` reads emotion tags. */
export function readsEmotionTags(provider: CloneProvider, model: string): boolean {
  return ROUTE_MODELS[provider].some((entry) => entry.id === model && entry.emotionTags);
}

/** Upload limits of one recording (src/voices/cloning/sample-audio.ts, SAMPLE_LIMITS). */
export const RECORDING_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  minDurationMs: 1_000,
  maxDurationMs: 5 * 60 * 1000,
} as const;

/** Spoken languages offered for uploads (BCP 47 tags, as the service stores them). */
export const SPOKEN_LANGUAGES: readonly { tag: string; name: string }[] = [
  { tag: 'en-US', name: 'English (US)' },
  { tag: 'en-GB', name: 'English (UK)' },
  { tag: 'zh-CN', name: 'Chinese (Mandarin)' },
  { tag: 'ja-JP', name: 'Japanese' },
  { tag: 'ko-KR', name: 'Korean' },
  { tag: 'es-ES', name: 'Spanish' },
  { tag: 'fr-FR', name: 'French' },
  { tag: 'de-DE', name: 'German' },
  { tag: 'it-IT', name: 'Italian' },
  { tag: 'pt-BR', name: 'Portuguese (Brazil)' },
  { tag: 'nl-NL', name: 'Dutch' },
  { tag: 'pl-PL', name: 'Polish' },
  { tag: 'ru-RU', name: 'Russian' },
  { tag: 'hi-IN', name: 'Hindi' },
  { tag: 'ar-SA', name: 'Arabic' },
];

/** Recording types the service accepts, by file extension (SAMPLE_CONTENT_TYPES). */
const RECORDING_TYPES: Readonly<Record<string, string>> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  flac: 'audio/flac',
  webm: 'audio/webm',
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
};
const ACCEPTED_TYPES = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/flac',
  'audio/x-flac',
  'audio/webm',
  'audio/mp4',
  'audio/x-m4a',
]);
export const ACCEPTED_EXTENSIONS = 'WAV, MP3, OGG, FLAC, WebM or M4A';

/**
 * The content type a chosen file is uploaded as: its own when the service accepts it,
 * else the one its extension names (browsers call a `.webm` file `video/webm`); undefined
 * when the service would refuse the file.
 */
export function recordingType(file: { name: string; type: string }): string | undefined {
  const own = file.type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (ACCEPTED_TYPES.has(own)) return own;
  const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
  return RECORDING_TYPES[extension];
}
