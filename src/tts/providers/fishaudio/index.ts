export { parseFishAudioError } from './error-body.ts';
export {
  FISHAUDIO_MODELS,
  FISHAUDIO_OUTPUT_FORMATS,
  FISHAUDIO_PCM_RATES,
  type FishAudioModelId,
  type FishAudioModelInfo,
  type FishAudioTagStyle,
  findFishAudioModel,
} from './models.ts';
export {
  type FishAudioLatency,
  FishAudioProvider,
  type FishAudioProviderOptions,
  isFishAudioReferenceId,
} from './provider.ts';
export { FISHAUDIO_MAX_SPEED, FISHAUDIO_MIN_SPEED, fishAudioSpeed } from './speed.ts';
export { fishAudioTagPrefix } from './tags.ts';
