import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '../../observability/logger.ts';
import { CallGuard, DEFAULT_LLM_TIMEOUTS, type LlmTimeouts } from '../call-guard.ts';
import { LlmError } from '../errors.ts';
import type { LlmChatRequest, LlmEvent, LlmModelInfo, LlmProvider } from '../provider.ts';
import { llmErrorFromSdk } from '../vendor-failure.ts';
import { toMessagesBody } from './request.ts';
import { MessageEventAssembler } from './stream.ts';

export interface AnthropicProviderOptions {
  /** API origin without the version path: `https://api.anthropic.com`. */
  baseUrl: string;
  apiKey: string | undefined;
  models: readonly LlmModelInfo[];
  logger: Logger;
  timeouts?: Partial<LlmTimeouts>;
}

/**
 * Anthropic Messages over `@anthropic-ai/sdk`, streamed. SDK retries are off, as in the
 * OpenAI-compatible adapter: the caller decides, with `retryAfterMs`.
 */
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly models: readonly LlmModelInfo[];
  readonly #client: Anthropic | undefined;
  readonly #logger: Logger;
  readonly #timeouts: LlmTimeouts;

  constructor(options: AnthropicProviderOptions) {
    this.models = options.models;
    this.#logger = options.logger;
    this.#timeouts = { ...DEFAULT_LLM_TIMEOUTS, ...options.timeouts };
    if (options.apiKey) {
      this.#client = new Anthropic({
        baseURL: options.baseUrl,
        apiKey: options.apiKey,
        authToken: null,
        maxRetries: 0,
        timeout: this.#timeouts.firstTokenTimeoutMs,
      });
    }
  }

  async *chat(request: LlmChatRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    if (this.#client === undefined) {
      throw new LlmError('auth_missing', 'anthropic: ANTHROPIC_API_KEY is not set');
    }
    const guard = new CallGuard(signal, this.#timeouts);
    try {
      guard.throwIfStopped();
      const stream = await this.#client.messages
        .create(toMessagesBody(request), { signal: guard.signal })
        .withResponse()
        .then(
          ({ data, request_id }) => {
            this.#logger.debug(
              { vendorRequestId: request_id, model: request.model },
              'anthropic: streaming',
            );
            return data;
          },
          (error: unknown) => {
            throw guard.stopped ?? this.#toLlmError(error);
          },
        );
      const assembler = new MessageEventAssembler();
      try {
        for await (const event of stream) {
          const { events, content } = assembler.push(event);
          guard.touch(content);
          for (const out of events) yield out;
        }
      } catch (error) {
        throw guard.stopped ?? this.#toLlmError(error);
      }
      guard.throwIfStopped();
      if (!assembler.finished) {
        throw new LlmError('unavailable', 'anthropic: the stream ended before message_stop');
      }
      yield assembler.finish();
    } finally {
      guard.dispose();
    }
  }

  async close(): Promise<void> {}

  #toLlmError(error: unknown): LlmError {
    const mapped = llmErrorFromSdk(
      error,
      'anthropic',
      { apiError: Anthropic.APIError, connectionError: Anthropic.APIConnectionError },
      (e) => (e as unknown as { type?: string | null }).type,
    );
    this.#logger.warn(
      { failure: mapped.failure, reason: mapped.message },
      'anthropic: call failed',
    );
    return mapped;
  }
}
