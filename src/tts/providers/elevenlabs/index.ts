export { parseElevenLabsError } from './error-body.ts';
export {
  ELEVENLABS_MODELS,
  ELEVENLABS_OUTPUT_FORMATS,
  ELEVENLABS_PCM_RATES,
  type ElevenLabsModelId,
  type ElevenLabsModelInfo,
  findElevenLabsModel,
} from './models.ts';
export {
  ElevenLabsProvider,
  type ElevenLabsProviderOptions,
  isElevenLabsVoiceId,
} from './provider.ts';
export { ELEVENLABS_MAX_SPEED, ELEVENLABS_MIN_SPEED, elevenLabsSpeed } from './speed.ts';
export { elevenLabsTagPrefix } from './tags.ts';
