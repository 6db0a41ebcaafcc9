import type { Llama, LlamaContext, LlamaModel } from 'node-llama-cpp';
import type { Logger } from '../../observability/logger.ts';
import { LlmError } from '../errors.ts';

/** The loaded embedded model: one context whose sequences the chats share. */
export interface LoadedModel {
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
}

export interface EngineOptions {
  readonly modelPath: string;
  /** CPU threads; one is best on a small shared machine (llama.cpp spins while waiting). */
  readonly threads: number;
  /** Sequences of the shared context: chats that run at once. */
  readonly sequences: number;
  /** Context size (tokens) of each sequence. */
  readonly contextSize: number;
  readonly logger: Logger;
}

/**
 * Loads the GGUF on first use with the prebuilt CPU binary (never a build, never a GPU),
 * once; a failed load is retried by the next call.
 */
export class LocalEngine {
  readonly #options: EngineOptions;
  #loading: Promise<LoadedModel> | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
  }

  load(): Promise<LoadedModel> {
    if (!this.#loading) {
      this.#loading = this.#load();
      this.#loading.catch(() => {
        this.#loading = undefined;
      });
    }
    return this.#loading;
  }

  async close(): Promise<void> {
    const loading = this.#loading;
    this.#loading = undefined;
    const loaded = await loading?.catch(() => undefined);
    if (!loaded) return;
    await loaded.context.dispose();
    await loaded.model.dispose();
    await loaded.llama.dispose();
  }

  async #load(): Promise<LoadedModel> {
    const { logger, modelPath } = this.#options;
    const startedAt = performance.now();
    try {
      const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
      const llama = await getLlama({
        gpu: false,
        build: 'never',
        logLevel: LlamaLogLevel.warn,
        logger: (level, message) => logger.debug({ level, message }, 'local llm: llama.cpp'),
      });
      const model = await llama.loadModel({ modelPath });
      const context = await model.createContext({
        contextSize: this.#options.contextSize,
        sequences: this.#options.sequences,
        threads: this.#options.threads,
      });
      logger.info(
        { loadMs: Math.round(performance.now() - startedAt), threads: this.#options.threads },
        'local llm: model loaded',
      );
      return { llama, model, context };
    } catch (error) {
      throw new LlmError('unavailable', 'local llm: the model could not be loaded', {
        cause: error,
      });
    }
  }
}
