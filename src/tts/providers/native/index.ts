export type { EnginePoolStats } from './engine-pool.ts';
export { defaultEngineHelperPath } from './helper/helper-path.ts';
export {
  type EngineProcessEvent,
  NativeProvider,
  type NativeProviderOptions,
} from './provider.ts';
export {
  DEFAULT_WORDS_PER_MINUTE,
  MAX_WORDS_PER_MINUTE,
  MIN_WORDS_PER_MINUTE,
  wordsPerMinute,
} from './speech-rate.ts';
export {
  findNativeVoice,
  NATIVE_OUTPUT_FORMATS,
  NATIVE_SAMPLE_RATE_HZ,
  NATIVE_VOICES,
  type NativeOutputFormat,
  type NativeVoice,
} from './voices.ts';
