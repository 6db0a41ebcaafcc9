export { type ChunkBreak, chunkText, DEFAULT_CHUNKING, type TextChunk } from './chunker.ts';
export { createKokoroEngine, type KokoroEngine, type KokoroEngineOptions } from './engine.ts';
export {
  InferencePool,
  type InferencePoolOptions,
  type InferencePoolStats,
} from './inference-pool.ts';
export {
  defaultKokoroDir,
  KOKORO_INSTALL_COMMAND,
  type KokoroFiles,
  KokoroFilesMissingError,
  locateKokoroFiles,
} from './model-files.ts';
export { normalizeText } from './normalize.ts';
export { type Phonemizer, phonemizeChunk, tokenize } from './phonemes.ts';
export { KokoroProvider, type KokoroProviderOptions, kokoroSpeed } from './provider.ts';
export {
  findKokoroVoice,
  KOKORO_SAMPLE_RATE_HZ,
  KOKORO_VOICES,
  type KokoroVoice,
  kokoroVoiceByStyle,
} from './voices.ts';
