import { z } from 'zod';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { LLM_PROVIDER_NAMES, THINKING_LEVELS } from '../llm/provider.ts';
import type { LlmCatalog } from '../llm/registry.ts';
import type { SttConfig } from '../stt/config.ts';
import { STT_CAPABILITIES, STT_PROVIDER_NAMES } from '../stt/provider.ts';

export const modelListSchema = z
  .object({
    language_models: z
      .array(
        z.object({
          provider: z.enum(LLM_PROVIDER_NAMES).describe('The Agent field `llm_provider`.'),
          model: z.string().describe('The Agent field `llm_model`.'),
          thinking_levels: z
            .array(z.enum(THINKING_LEVELS))
            .describe('`thinking_level` values this model accepts; `off` always.'),
          tools: z
            .boolean()
            .describe(
              'The model calls tools (memory, calendar, documents, web search); when false the Agent answers without them.',
            ),
        }),
      )
      .describe('Every provider and model an Agent may choose here; the first is the default.'),
    speech_to_text: z
      .array(
        z.object({
          provider: z.enum(STT_PROVIDER_NAMES),
          model: z.string(),
          streaming: z.boolean().describe('Recognition runs while audio arrives.'),
          interim_results: z
            .boolean()
            .describe('Realtime transcription sends interim `transcript` events.'),
        }),
      )
      .describe('The engines that transcribe Agent sessions and realtime transcription here.'),
  })
  .meta({ title: 'ModelList' });

/** The model name of the configured speech-to-text engine. */
function sttModel(config: SttConfig): string {
  switch (config.STT_PROVIDER) {
    case 'embedded':
      return `whisper-${config.WHISPER_MODEL}`;
    case 'deepgram':
      return config.DEEPGRAM_MODEL;
    case 'openai':
      return config.STT_OPENAI_MODEL;
  }
}

/** The body of `GET /v1/models`: what this deployment runs, from its configuration. */
export function modelListBody(llm: LlmCatalog, stt: SttConfig): z.infer<typeof modelListSchema> {
  const capabilities = STT_CAPABILITIES[stt.STT_PROVIDER];
  return {
    language_models: llm.list().flatMap((spec) =>
      spec.models.map((model) => ({
        provider: spec.name,
        model: model.name,
        thinking_levels: THINKING_LEVELS.filter((level) =>
          llm.allowsThinking(spec.name, model.name, level),
        ),
        tools: model.supportsTools !== false,
      })),
    ),
    speech_to_text: [
      {
        provider: stt.STT_PROVIDER,
        model: sttModel(stt),
        streaming: capabilities.streaming,
        interim_results: capabilities.interimResults,
      },
    ],
  };
}

/**
 * `GET /v1/models`: the language models and speech-to-text engines this deployment runs.
 * The OpenAPI document is the same for every deployment; this route is where one
 * deployment's choices are read.
 */
export function modelRoutes(llm: LlmCatalog, stt: SttConfig): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/models',
      operationId: 'listModels',
      summary:
        'The language models (`llm_provider`, `llm_model`) and speech-to-text engines this deployment offers, with their capabilities.',
      tags: ['models'],
      auth: { kind: 'workspace_key' },
      responses: { 200: { description: 'The models.', schema: modelListSchema } },
      handle: async () => ({ status: 200, body: modelListBody(llm, stt) }),
    }),
  ];
}
