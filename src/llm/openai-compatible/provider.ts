import OpenAI from 'openai';
import type { Logger } from '../../observability/logger.ts';
import { CallGuard, DEFAULT_LLM_TIMEOUTS, type LlmTimeouts } from '../call-guard.ts';
import { LlmError } from '../errors.ts';
import type { LlmChatRequest, LlmEvent, LlmModelInfo, LlmProvider } from '../provider.ts';
import { llmErrorFromSdk } from '../vendor-failure.ts';
import { toChatCompletionBody } from './request.ts';
import { ChatChunkAssembler } from './stream.ts';

export interface OpenAiCompatibleProviderOptions {
  /** API root including the version path: `https://api.openai.com/v1`, `http://vllm:8000/v1`. */
  baseUrl: string;
  /**
   * Bearer key. Required by OpenAI itself; a self-hosted server (vLLM, llama.cpp, Ollama)
   * without one is called without an `Authorization` header.
   */
  apiKey: string | undefined;
  models: readonly LlmModelInfo[];
  logger: Logger;
  timeouts?: Partial<LlmTimeouts>;
}

const OPENAI_HOST = 'api.openai.com';

/**
 * Chat Completions over the `openai` SDK, streamed with usage. The SDK's own retries are
 * off: a voice turn cannot wait through backoff, so the caller decides (the `LlmError`
 * carries `retryAfterMs`).
 */
export class OpenAiCompatibleProvider implements LlmProvider {
  readonly name = 'openai' as const;
  readonly models: readonly LlmModelInfo[];
  readonly #client: OpenAI | undefined;
  readonly #logger: Logger;
  readonly #timeouts: LlmTimeouts;
  readonly #hasKey: boolean;

  constructor(options: OpenAiCompatibleProviderOptions) {
    this.models = options.models;
    this.#logger = options.logger;
    this.#timeouts = { ...DEFAULT_LLM_TIMEOUTS, ...options.timeouts };
    this.#hasKey = Boolean(options.apiKey);
    const needsKey = new URL(options.baseUrl).hostname === OPENAI_HOST;
    if (options.apiKey || !needsKey) {
      this.#client = new OpenAI({
        baseURL: options.baseUrl,
        // The SDK insists on a key; a keyless server gets the header removed below.
        apiKey: options.apiKey || 'unused',
        ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
        maxRetries: 0,
        timeout: this.#timeouts.firstTokenTimeoutMs,
      });
    }
  }

  async *chat(request: LlmChatRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    if (this.#client === undefined) {
      throw new LlmError('auth_missing', 'openai: OPENAI_API_KEY is not set');
    }
    const guard = new CallGuard(signal, this.#timeouts);
    try {
      guard.throwIfStopped();
      const stream = await this.#client.chat.completions
        .create(toChatCompletionBody(request), { signal: guard.signal })
        .withResponse()
        .then(
          ({ data, request_id }) => {
            this.#logger.debug(
              { vendorRequestId: request_id, model: request.model },
              'openai: streaming',
            );
            return data;
          },
          (error: unknown) => {
            throw guard.stopped ?? this.#toLlmError(error);
          },
        );
      const assembler = new ChatChunkAssembler();
      try {
        for await (const chunk of stream) {
          const { events, content } = assembler.push(chunk);
          guard.touch(content);
          for (const event of events) yield event;
        }
      } catch (error) {
        throw guard.stopped ?? this.#toLlmError(error);
      }
      // The SDK ends an aborted stream quietly; `[DONE]` without a finish reason is a cut.
      guard.throwIfStopped();
      if (!assembler.finished) {
        throw new LlmError('unavailable', 'openai: the stream ended before the answer finished');
      }
      for (const event of assembler.finish()) yield event;
    } finally {
      guard.dispose();
    }
  }

  async close(): Promise<void> {}

  #toLlmError(error: unknown): LlmError {
    let mapped = llmErrorFromSdk(
      error,
      'openai',
      { apiError: OpenAI.APIError, connectionError: OpenAI.APIConnectionError },
      (e) => {
        const body = (e as unknown as { error?: { type?: string; code?: string } }).error;
        return body?.type ?? body?.code;
      },
    );
    if (mapped.failure === 'auth_rejected' && !this.#hasKey) {
      // A server we called without a key because it might be keyless wants one.
      mapped = new LlmError('auth_missing', 'openai: the server wants a key; set OPENAI_API_KEY', {
        cause: mapped,
      });
    }
    this.#logger.warn({ failure: mapped.failure, reason: mapped.message }, 'openai: call failed');
    return mapped;
  }
}
