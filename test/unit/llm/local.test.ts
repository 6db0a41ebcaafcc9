import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLlmProvider } from '../../../src/llm/local/provider.ts';
import type { LlmChatRequest, LlmEvent } from '../../../src/llm/provider.ts';
import { defaultLocalModelPath } from '../../../src/llm/registry.ts';
import { chatOutcome, llmErrorOf, memoryLogger, textOf, within } from './helpers.ts';

// Installed by scripts/setup.sh (scripts/install-llm-model.sh); the test fails without it
// rather than skipping, since the offline path is a product feature.
const modelPath = process.env.LOCAL_LLM_MODEL_PATH ?? defaultLocalModelPath();

const request: LlmChatRequest = {
  model: 'smollm2-135m-instruct',
  messages: [
    { role: 'system', content: 'You are a friendly assistant. Answer in one short sentence.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  maxOutputTokens: 32,
};

describe('embedded model (SmolLM2-135M on node-llama-cpp)', () => {
  let provider: LocalLlmProvider;
  const { logger } = memoryLogger();

  beforeAll(() => {
    expect(existsSync(modelPath), `${modelPath} missing: run scripts/install-llm-model.sh`).toBe(
      true,
    );
    provider = new LocalLlmProvider({ modelPath, models: [], logger });
  });

  afterAll(async () => {
    await provider?.close();
  });

  it('answers one turn with streamed text and counts input and output tokens', async () => {
    const startedAt = performance.now();
    let firstTokenMs: number | undefined;
    const events: LlmEvent[] = [];
    for await (const event of provider.chat(request, new AbortController().signal)) {
      if (firstTokenMs === undefined && event.type === 'text')
        firstTokenMs = performance.now() - startedAt;
      events.push(event);
    }
    // Cold: includes loading the model. Printed for the record, never asserted.
    console.info(`local llm: first token after ${Math.round(firstTokenMs ?? -1)} ms (cold)`);
    expect(textOf(events).trim().length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(1);
    const done = events.at(-1);
    expect(done?.type).toBe('done');
    if (done?.type !== 'done') return;
    expect(done.usage.inputTokens).toBeGreaterThan(10);
    expect(done.usage.outputTokens).toBeGreaterThan(0);
    expect(done.usage.outputTokens).toBeLessThanOrEqual(32);
    expect(events.some((e) => e.type === 'tool_call')).toBe(false);
  }, 120_000);

  it('runs a request with tools without them and still answers', async () => {
    const startedAt = performance.now();
    const outcome = await chatOutcome(
      provider.chat(
        {
          ...request,
          tools: [
            {
              name: 'get_weather',
              description: 'Weather of a city.',
              parameters: { type: 'object' },
            },
          ],
        },
        new AbortController().signal,
      ),
    );
    console.info(`local llm: warm turn took ${Math.round(performance.now() - startedAt)} ms`);
    expect(outcome.error).toBeUndefined();
    expect(textOf(outcome.events).trim().length).toBeGreaterThan(0);
    expect(outcome.events.some((e) => e.type === 'tool_call')).toBe(false);
  }, 60_000);

  it('stops on abort mid-answer with a cancelled LlmError, and serves the next call', async () => {
    const controller = new AbortController();
    const iterator = provider
      .chat(
        {
          ...request,
          maxOutputTokens: 200,
          messages: [{ role: 'user', content: 'Tell me a long story about a dragon.' }],
        },
        controller.signal,
      )
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ type: 'text' });
    controller.abort();
    const error = await within(
      iterator.next().then(
        () => undefined,
        (e: unknown) => e,
      ),
      5000,
      'next() after abort',
    );
    expect(llmErrorOf({ events: [], error }).failure).toBe('cancelled');
    const next = await chatOutcome(provider.chat(request, new AbortController().signal));
    expect(next.error).toBeUndefined();
    expect(next.events.at(-1)?.type).toBe('done');
  }, 60_000);
});
