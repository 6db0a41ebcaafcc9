import type { ResponseJson } from './openapi.ts';

/**
 * Answer of `GET /v1/models`: the language models an Agent may choose on this deployment
 * (`provider` and `model` are the Agent's `llm_provider` and `llm_model`; the first is the
 * default) and its speech-to-text engines with their capabilities.
 */
export type ModelList = ResponseJson<'listModels', 200>;

/** One language model of `GET /v1/models`. */
export type LanguageModel = ModelList['language_models'][number];

/** One speech-to-text engine of `GET /v1/models`. */
export type SpeechToTextEngine = ModelList['speech_to_text'][number];
