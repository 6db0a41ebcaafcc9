import type { Environment } from '../app/config.ts';
import type { LlmCharge, LlmLedger } from '../billing/llm-ledger.ts';
import { llmCostMillicredits } from '../billing/pricing.ts';
import { toTurnError } from '../conversations/turn-errors.ts';
import { usageBound } from '../llm/bounds.ts';
import { LlmError } from '../llm/errors.ts';
import type { LlmUsage } from '../llm/provider.ts';
import { type TranslationModel, translationMessages } from './translator.ts';

/** One event of a preview, in order: deltas, then the whole translation with its cost. */
export type TranslationEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; text: string; usage: LlmUsage; charge: LlmCharge };

export interface TranslationPreviewInput {
  workspaceId: string;
  environment: Environment;
  apiKeyId: string | null;
  requestId: string;
  auditId: string;
  text: string;
  targetLanguage: string;
  sourceLanguage?: string | undefined;
  maxOutputTokens: number;
  signal: AbortSignal;
}

/**
 * One translation through the language-model ledger (`source` `translation`, no Agent):
 * the worst case is reserved before the call (`402 insufficient_credit` when the balance
 * cannot cover it), the exact usage charged at the end; a failed or cancelled translation
 * costs nothing. The reservation happens before the first event is produced, so a refusal
 * is an ordinary HTTP error.
 */
export async function startTranslationPreview(
  ledger: LlmLedger,
  model: TranslationModel,
  input: TranslationPreviewInput,
): Promise<AsyncGenerator<TranslationEvent>> {
  const request = {
    model: model.info.name,
    messages: translationMessages(input),
    maxOutputTokens: input.maxOutputTokens,
    thinkingLevel: 'off' as const,
  };
  await ledger.start({
    requestId: input.requestId,
    auditId: input.auditId,
    workspaceId: input.workspaceId,
    environment: input.environment,
    apiKeyId: input.apiKeyId,
    source: 'translation',
    agentId: null,
    publicationId: null,
    conversationId: null,
    conversationIsNew: false,
    userMessageId: null,
    provider: model.provider.name,
    model: model.info,
    reserveMillicredits: llmCostMillicredits(usageBound(model.provider.name, request), model.info),
  });
  return run();

  async function* run(): AsyncGenerator<TranslationEvent> {
    let settled = false;
    let text = '';
    try {
      for await (const event of model.provider.chat(request, input.signal)) {
        if (event.type === 'text') {
          text += event.delta;
          yield { type: 'delta', text: event.delta };
        } else if (event.type === 'done') {
          const charge = await ledger.succeed(input.requestId, event.usage, async () => ({
            assistantMessageId: null,
          }));
          settled = true;
          if (!charge)
            throw new LlmError('unavailable', 'the translation was closed before it ended');
          yield { type: 'done', text: text.trim(), usage: event.usage, charge };
          return;
        }
      }
      throw new LlmError('unavailable', 'the model stream ended without an answer');
    } catch (error) {
      if (settled) throw toTurnError(error);
      settled = true;
      const cancelled = input.signal.aborted;
      const apiError = toTurnError(error);
      await ledger.fail(
        input.requestId,
        cancelled ? 'cancelled' : 'failed',
        cancelled ? null : apiError.code,
      );
      throw apiError;
    } finally {
      if (!settled) await ledger.fail(input.requestId, 'cancelled', null);
    }
  }
}
