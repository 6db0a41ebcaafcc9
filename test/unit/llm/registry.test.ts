import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { llmCatalogFromConfig } from '../../../src/llm/registry.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { chatOutcome, llmErrorOf, memoryLogger } from './helpers.ts';

describe('llmCatalogFromConfig', () => {
  const fakes: FakeOpenAiChat[] = [];
  afterAll(async () => {
    await Promise.all(fakes.map((fake) => fake.close()));
  });

  it('passes LLM_IDLE_TIMEOUT_MS and LLM_FIRST_TOKEN_TIMEOUT_MS to the adapters it creates', async () => {
    const fake = await FakeOpenAiChat.start();
    fakes.push(fake);
    fake.script({ text: ['a', 'b', 'c'], failure: { kind: 'stall_after_deltas', deltas: 1 } });
    const config = loadConfig({
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: fake.apiKey ?? '',
      OPENAI_MODELS: 'gpt-4.1-mini',
      LLM_IDLE_TIMEOUT_MS: '200',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '5000',
      LOCAL_LLM: 'false',
    });
    expect(config.LLM_IDLE_TIMEOUT_MS).toBe(200);
    const catalog = llmCatalogFromConfig(config, memoryLogger().logger);
    expect(catalog.providerNames()).toEqual(['openai']);
    const provider = await catalog.provider('openai');
    const startedAt = Date.now();
    const outcome = await chatOutcome(
      provider!.chat(
        { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] },
        new AbortController().signal,
      ),
    );
    expect(llmErrorOf(outcome).failure).toBe('unavailable');
    expect(Date.now() - startedAt).toBeLessThan(2000);
    await catalog.close();
  });

  it('defaults the timeouts to 30 s first token and 15 s idle', () => {
    const config = loadConfig({});
    expect(config.LLM_FIRST_TOKEN_TIMEOUT_MS).toBe(30_000);
    expect(config.LLM_IDLE_TIMEOUT_MS).toBe(15_000);
    expect(config.LOCAL_LLM_THREADS).toBe(1);
  });

  it('lists the local model, without tools, only when its weights exist', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'awp-llm-'));
    const missing = loadConfig({ LOCAL_LLM_MODEL_PATH: path.join(dir, 'none.gguf') });
    expect(llmCatalogFromConfig(missing, memoryLogger().logger).providerNames()).not.toContain(
      'local',
    );
    const file = path.join(dir, 'model.gguf');
    writeFileSync(file, 'GGUF');
    const catalog = llmCatalogFromConfig(
      loadConfig({ LOCAL_LLM_MODEL_PATH: file }),
      memoryLogger().logger,
    );
    expect(catalog.providerNames()).toContain('local');
    expect(catalog.model('local', 'smollm2-135m-instruct')).toMatchObject({
      supportsTools: false,
      thinkingLevels: ['off'],
    });
    const off = loadConfig({ LOCAL_LLM_MODEL_PATH: file, LOCAL_LLM: 'false' });
    expect(llmCatalogFromConfig(off, memoryLogger().logger).providerNames()).not.toContain('local');
  });
});
