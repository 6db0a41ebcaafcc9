import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Config } from '../app/config.ts';
import type { Logger } from '../observability/logger.ts';
import { isOpenAiReasoningModel } from './openai-compatible/models.ts';
import type { LlmModelInfo, LlmProvider, LlmProviderName, ThinkingLevel } from './provider.ts';

/** A provider the deployment has configured: its models and how to create its adapter. */
export interface LlmProviderSpec {
  name: LlmProviderName;
  models: readonly LlmModelInfo[];
  /** Creates the adapter on first use (the local model loads lazily). */
  create(): Promise<LlmProvider>;
}

/** A chosen provider and model, as Agents store them. */
export interface LlmSelection {
  provider: LlmProviderName;
  model: string;
}

/**
 * The language models this deployment offers: only configured providers are listed, so
 * the allowed `llm_provider` / `llm_model` / `thinking_level` values are exactly what can
 * run here. Adapters are created on first use and shared.
 */
export class LlmCatalog {
  private readonly adapters = new Map<LlmProviderName, Promise<LlmProvider>>();

  constructor(private readonly specs: readonly LlmProviderSpec[]) {}

  /** Configured providers with their models, in a stable order. */
  list(): readonly LlmProviderSpec[] {
    return this.specs;
  }

  providerNames(): LlmProviderName[] {
    return this.specs.map((spec) => spec.name);
  }

  modelNames(): string[] {
    return [...new Set(this.specs.flatMap((spec) => spec.models.map((m) => m.name)))];
  }

  model(provider: string, model: string): LlmModelInfo | undefined {
    return this.specs.find((spec) => spec.name === provider)?.models.find((m) => m.name === model);
  }

  /** True when `thinkingLevel` is allowed for this provider and model. */
  allowsThinking(provider: string, model: string, thinkingLevel: ThinkingLevel): boolean {
    const info = this.model(provider, model);
    return (
      info !== undefined && (thinkingLevel === 'off' || info.thinkingLevels.includes(thinkingLevel))
    );
  }

  /** The selection new Agents get when they name none: the first configured model. */
  defaultSelection(): LlmSelection | undefined {
    const first = this.specs[0];
    const model = first?.models[0];
    return first && model ? { provider: first.name, model: model.name } : undefined;
  }

  /** The adapter of a configured provider; undefined when the deployment has none. */
  provider(name: LlmProviderName): Promise<LlmProvider> | undefined {
    const spec = this.specs.find((s) => s.name === name);
    if (!spec) return undefined;
    let adapter = this.adapters.get(name);
    if (!adapter) {
      adapter = spec.create();
      adapter.catch(() => this.adapters.delete(name));
      this.adapters.set(name, adapter);
    }
    return adapter;
  }

  async close(): Promise<void> {
    const adapters = [...this.adapters.values()];
    this.adapters.clear();
    await Promise.all(adapters.map(async (a) => (await a.catch(() => undefined))?.close()));
  }
}

/** Where the setup script installs the embedded model's weights. */
export function defaultLocalModelPath(): string {
  const cache = process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache');
  return path.join(cache, 'awp', 'models', 'SmolLM2-135M-Instruct-Q4_1.gguf');
}

/** Thinking levels a model of a provider accepts. */
function thinkingLevelsOf(provider: LlmProviderName, model: string): ThinkingLevel[] {
  if (provider === 'openai') {
    return isOpenAiReasoningModel(model) ? ['off', 'low', 'medium', 'high'] : ['off'];
  }
  if (provider === 'anthropic') return ['off', 'low', 'medium', 'high'];
  return ['off'];
}

const PER_CREDIT = 1000;

/** The catalog of the providers configured in `config`. */
export function llmCatalogFromConfig(config: Config, logger: Logger): LlmCatalog {
  const specs: LlmProviderSpec[] = [];
  const timeouts = {
    firstTokenTimeoutMs: config.LLM_FIRST_TOKEN_TIMEOUT_MS,
    idleTimeoutMs: config.LLM_IDLE_TIMEOUT_MS,
  };
  const models = (
    provider: LlmProviderName,
    names: readonly string[],
    inputCreditsPer1M: number,
    outputCreditsPer1M: number,
  ): LlmModelInfo[] =>
    names.map((name) => ({
      name,
      thinkingLevels: thinkingLevelsOf(provider, name),
      inputMillicreditsPer1M: inputCreditsPer1M * PER_CREDIT,
      outputMillicreditsPer1M: outputCreditsPer1M * PER_CREDIT,
      // The embedded 135M model cannot call tools reliably: it runs without them.
      ...(provider === 'local' ? { supportsTools: false } : {}),
    }));

  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    specs.push({
      name: 'openai',
      models: models(
        'openai',
        config.OPENAI_MODELS,
        config.PRICE_OPENAI_CREDITS_PER_1M_INPUT_TOKENS,
        config.PRICE_OPENAI_CREDITS_PER_1M_OUTPUT_TOKENS,
      ),
      create: async () => {
        const { OpenAiCompatibleProvider } = await import('./openai-compatible/provider.ts');
        return new OpenAiCompatibleProvider({
          baseUrl: config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
          apiKey: config.OPENAI_API_KEY,
          models: specs.find((s) => s.name === 'openai')?.models ?? [],
          logger,
          timeouts,
        });
      },
    });
  }
  if (config.ANTHROPIC_API_KEY || config.ANTHROPIC_BASE_URL) {
    specs.push({
      name: 'anthropic',
      models: models(
        'anthropic',
        config.ANTHROPIC_MODELS,
        config.PRICE_ANTHROPIC_CREDITS_PER_1M_INPUT_TOKENS,
        config.PRICE_ANTHROPIC_CREDITS_PER_1M_OUTPUT_TOKENS,
      ),
      create: async () => {
        const { AnthropicProvider } = await import('./anthropic/provider.ts');
        return new AnthropicProvider({
          baseUrl: config.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
          apiKey: config.ANTHROPIC_API_KEY,
          models: specs.find((s) => s.name === 'anthropic')?.models ?? [],
          logger,
          timeouts,
        });
      },
    });
  }
  const localPath = config.LOCAL_LLM_MODEL_PATH ?? defaultLocalModelPath();
  if (config.LOCAL_LLM && existsSync(localPath)) {
    specs.push({
      name: 'local',
      models: models(
        'local',
        [LOCAL_MODEL_NAME],
        config.PRICE_LOCAL_CREDITS_PER_1M_INPUT_TOKENS,
        config.PRICE_LOCAL_CREDITS_PER_1M_OUTPUT_TOKENS,
      ),
      create: async () => {
        const { LocalLlmProvider } = await import('./local/provider.ts');
        return new LocalLlmProvider({
          modelPath: localPath,
          models: specs.find((s) => s.name === 'local')?.models ?? [],
          logger,
          threads: config.LOCAL_LLM_THREADS,
        });
      },
    });
  }
  return new LlmCatalog(specs);
}

/** `llm_model` of the embedded model. */
export const LOCAL_MODEL_NAME = 'smollm2-135m-instruct';
