import type { Logger } from '../../observability/logger.ts';
import { LlmError } from '../errors.ts';
import type { LlmChatRequest, LlmEvent, LlmModelInfo, LlmProvider } from '../provider.ts';

export interface AnthropicProviderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  models: readonly LlmModelInfo[];
  logger: Logger;
}

// PLACEHOLDER: the adapter is being written; it fails every call until then.
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly models: readonly LlmModelInfo[];

  constructor(options: AnthropicProviderOptions) {
    this.models = options.models;
  }

  // biome-ignore lint/correctness/useYield: placeholder
  async *chat(_request: LlmChatRequest, _signal: AbortSignal): AsyncIterable<LlmEvent> {
    throw new LlmError('unavailable', 'not implemented');
  }

  async close(): Promise<void> {}
}
