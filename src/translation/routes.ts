import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { canonicalLanguage } from '../agents/agents.ts';
import { languageTagSchema } from '../agents/language-tag.ts';
import type { Config } from '../app/config.ts';
import { requireAuth } from '../auth/context.ts';
import type { LlmLedger } from '../billing/llm-ledger.ts';
import { usageBody } from '../conversations/schemas.ts';
import { errorBody, toApiError } from '../errors.ts';
import { type AnyRoute, defineRoute } from '../http/route.ts';
import { SSE_HEADERS, sseFrame } from '../http/sse.ts';
import type { LlmCatalog } from '../llm/registry.ts';
import { startTranslationPreview, type TranslationEvent } from './preview.ts';
import { MAX_TRANSLATION_CHARS, translationModel } from './translator.ts';

const language = (what: string) =>
  languageTagSchema().describe(`${what} (BCP 47: \`fr\`, \`es-MX\`, \`zh-Hans\`).`);

const previewBodySchema = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .max(MAX_TRANSLATION_CHARS)
      .refine((text) => text.trim() !== '', 'must not be blank')
      .describe(`The text to translate (at most ${MAX_TRANSLATION_CHARS} characters).`),
    target_language: language('The language to translate into'),
    source_language: language('The language of the text; omitted, the model detects it').optional(),
  })
  .meta({ title: 'TranslationPreviewRequest' });
type PreviewBody = z.infer<typeof previewBodySchema>;

const usageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  charge: z.object({ credits: z.number(), amount: z.number(), currency: z.literal('USD') }),
});

const previewEventsSchema = z
  .discriminatedUnion('event', [
    z.object({
      event: z.literal('translation'),
      data: z.object({
        request_id: z.string(),
        target_language: z.string(),
        source_language: z.string().nullable(),
      }),
    }),
    z.object({ event: z.literal('delta'), data: z.object({ text: z.string() }) }),
    z.object({ event: z.literal('usage'), data: usageSchema }),
    z.object({ event: z.literal('done'), data: z.object({ text: z.string() }) }),
    z.object({
      event: z.literal('error'),
      data: z.object({
        event: z.literal('error'),
        request_id: z.string(),
        code: z.string(),
        retryable: z.boolean(),
        detail: z.string(),
      }),
    }),
  ])
  .meta({ title: 'TranslationPreviewEvent' });

async function* previewStream(
  header: Record<string, unknown>,
  first: IteratorResult<TranslationEvent>,
  iterator: AsyncIterator<TranslationEvent>,
  requestId: string,
): AsyncGenerator<string> {
  let next = first;
  try {
    yield sseFrame('translation', header);
    while (!next.done) {
      const event = next.value;
      if (event.type === 'delta') {
        yield sseFrame('delta', { text: event.text });
      } else {
        yield sseFrame('usage', usageBody(event.usage, event.charge));
        yield sseFrame('done', { text: event.text });
      }
      next = await iterator.next();
    }
  } catch (error) {
    yield sseFrame('error', errorBody(toApiError(error), requestId));
  } finally {
    await iterator.return?.();
  }
}

/**
 * `POST /v1/realtime-translation-preview`: the spec's server-sent-events preview of a
 * translation: the deployment's language model translates the text, streamed as it comes,
 * charged by its tokens through the language-model ledger.
 */
export function translationRoutes(deps: {
  catalog: LlmCatalog;
  ledger: LlmLedger;
  config: Pick<
    Config,
    'TRANSLATION_LLM_PROVIDER' | 'TRANSLATION_LLM_MODEL' | 'TRANSLATION_MAX_OUTPUT_TOKENS'
  >;
}): AnyRoute[] {
  return [
    defineRoute<PreviewBody>({
      method: 'POST',
      path: '/v1/realtime-translation-preview',
      operationId: 'previewTranslation',
      summary:
        'Translate a text and stream the translation as server-sent events: `translation`, `delta`..., `usage`, `done`, or a last `error` (the error object). A failure before the first token is an ordinary HTTP error.',
      tags: ['translation'],
      auth: { kind: 'workspace_key', capability: 'translation' },
      body: previewBodySchema,
      responses: {
        200: {
          description: 'The translation as it streams.',
          events: previewEventsSchema,
          headers: { 'Cache-Control': 'no-store' },
        },
      },
      errors: [
        'insufficient_credit',
        'provider_auth_missing',
        'provider_error',
        'provider_unavailable',
      ],
      handle: async ({ request, auth, body }) => {
        const caller = requireAuth(auth);
        const target = canonicalLanguage(body.target_language);
        const source = body.source_language ? canonicalLanguage(body.source_language) : undefined;
        const model = await translationModel(deps.catalog, deps.config);
        const events = await startTranslationPreview(deps.ledger, model, {
          workspaceId: caller.workspaceId,
          environment: caller.environment,
          apiKeyId: caller.keyId,
          requestId: request.requestId,
          auditId: `aud_${uuidv7()}`,
          text: body.text,
          targetLanguage: target,
          sourceLanguage: source,
          maxOutputTokens: deps.config.TRANSLATION_MAX_OUTPUT_TOKENS,
          signal: request.signal,
        });
        // Headers wait for the model's first event: a failure before it keeps its status.
        const first = await events.next();
        return {
          status: 200,
          headers: { 'cache-control': 'no-store', ...SSE_HEADERS },
          stream: previewStream(
            {
              request_id: request.requestId,
              target_language: target,
              source_language: source ?? null,
            },
            first,
            events,
            request.requestId,
          ),
        };
      },
    }),
  ];
}
