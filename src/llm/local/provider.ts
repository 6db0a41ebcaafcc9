import type { Logger } from '../../observability/logger.ts';
import { ConcurrencyLimiter } from '../../tts/providers/upstream/concurrency-limiter.ts';
import { LlmError } from '../errors.ts';
import type { LlmChatRequest, LlmEvent, LlmModelInfo, LlmProvider } from '../provider.ts';
import { LocalEngine } from './engine.ts';
import { toChatHistory } from './history.ts';

export interface LocalLlmProviderOptions {
  modelPath: string;
  models: readonly LlmModelInfo[];
  logger: Logger;
  /** CPU threads of the model. Default 1. */
  threads?: number;
  /** Chats generating at once; more wait in order. Default 2. */
  maxConcurrentChats?: number;
  /** Context size per chat, in tokens. Default 2048. */
  contextSize?: number;
  /** Output bound when the request names none. Default 256. */
  defaultMaxOutputTokens?: number;
}

/**
 * The embedded model (SmolLM2-135M-Instruct, GGUF) on node-llama-cpp, CPU only, for
 * offline use. It cannot call tools reliably, so requests run without their tools (the
 * catalog marks its model `supportsTools: false`). Each chat gets a fresh sequence of the
 * shared context, so its token meter counts exactly this call's prompt and answer.
 */
export class LocalLlmProvider implements LlmProvider {
  readonly name = 'local' as const;
  readonly models: readonly LlmModelInfo[];
  readonly #engine: LocalEngine;
  readonly #slots: ConcurrencyLimiter;
  readonly #logger: Logger;
  readonly #defaultMaxOutputTokens: number;

  constructor(options: LocalLlmProviderOptions) {
    this.models = options.models;
    this.#logger = options.logger;
    const sequences = options.maxConcurrentChats ?? 2;
    this.#slots = new ConcurrencyLimiter(sequences);
    this.#defaultMaxOutputTokens = options.defaultMaxOutputTokens ?? 256;
    this.#engine = new LocalEngine({
      modelPath: options.modelPath,
      threads: options.threads ?? 1,
      sequences,
      contextSize: options.contextSize ?? 2048,
      logger: options.logger,
    });
  }

  async *chat(request: LlmChatRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    const cancelled = () => new LlmError('cancelled', 'the caller aborted the call');
    if (signal.aborted) throw cancelled();
    if (request.tools !== undefined && request.tools.length > 0) {
      this.#logger.debug({ tools: request.tools.length }, 'local llm: running without tools');
    }
    const release = await this.#slots.acquire(signal).catch(() => {
      throw cancelled();
    });
    try {
      const { context } = await this.#engine.load();
      if (signal.aborted) throw cancelled();
      const { LlamaChat } = await import('node-llama-cpp');
      const sequence = context.getSequence();
      const chat = new LlamaChat({ contextSequence: sequence, autoDisposeSequence: true });
      // Our own controller: a consumer that stops reading must stop the generation too.
      const stop = new AbortController();
      const onAbort = () => stop.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const deltas = new DeltaQueue();
      const generation = chat
        .generateResponse(toChatHistory(request.messages), {
          signal: stop.signal,
          maxTokens: request.maxOutputTokens ?? this.#defaultMaxOutputTokens,
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          onTextChunk: (text) => deltas.push(text),
        })
        .finally(() => deltas.end());
      // Read below; this keeps an early rejection from counting as unhandled meanwhile.
      generation.catch(() => {});
      try {
        for await (const delta of deltas) yield { type: 'text', delta };
        const result = await generation;
        const usage = sequence.tokenMeter.getState();
        yield {
          type: 'done',
          finishReason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
          usage: { inputTokens: usage.usedInputTokens, outputTokens: usage.usedOutputTokens },
        };
      } catch (error) {
        if (signal.aborted) throw cancelled();
        throw new LlmError('unavailable', 'local llm: generation failed', { cause: error });
      } finally {
        signal.removeEventListener('abort', onAbort);
        stop.abort();
        // The sequence goes back to the context only once the generation has stopped.
        await generation.catch(() => {});
        chat.dispose({ disposeSequence: true });
      }
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    await this.#engine.close();
  }
}

/** Text chunks handed from the generation callback to the async iteration. */
class DeltaQueue implements AsyncIterable<string> {
  readonly #items: string[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push(text: string): void {
    if (this.#ended || text === '') return;
    this.#items.push(text);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const next = this.#items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
