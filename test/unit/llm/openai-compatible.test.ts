import { afterAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../src/llm/openai-compatible/provider.ts';
import type { LlmChatRequest } from '../../../src/llm/provider.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { runLlmAdapterConformance } from './conformance.ts';
import { chatOutcome, memoryLogger } from './helpers.ts';

const quietLogger = () => memoryLogger().logger;

runLlmAdapterConformance<FakeOpenAiChat>({
  name: 'openai-compatible',
  startFake: (options) => FakeOpenAiChat.start(options),
  makeProvider: (fake, settings) =>
    new OpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      apiKey: 'apiKey' in settings ? settings.apiKey : (fake.apiKey ?? undefined),
      models: [],
      logger: settings.logger ?? quietLogger(),
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    }),
  model: 'gpt-4.1-mini',
  streamError: { type: 'server_error', failure: 'unavailable' },
  requestIdHeader: 'x-request-id',
});

describe('OpenAI-compatible request body', () => {
  const fakes: FakeOpenAiChat[] = [];
  afterAll(async () => {
    await Promise.all(fakes.map((fake) => fake.close()));
  });

  async function send(request: LlmChatRequest, options: { keyless?: boolean } = {}) {
    const fake = await FakeOpenAiChat.start(options.keyless ? { apiKey: null } : {});
    fakes.push(fake);
    const provider = new OpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      apiKey: options.keyless ? undefined : (fake.apiKey ?? undefined),
      models: [],
      logger: quietLogger(),
    });
    const outcome = await chatOutcome(provider.chat(request, new AbortController().signal));
    expect(outcome.error).toBeUndefined();
    const recorded = fake.requests[0];
    if (!recorded) throw new Error('no request reached the fake');
    return recorded;
  }

  it('maps a whole tool-use conversation exactly, with tools and streamed usage', async () => {
    const recorded = await send({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { id: 'call_2', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', content: '18 C, sunny' },
        { role: 'tool', toolCallId: 'call_2', content: '24 C, rain' },
        { role: 'assistant', content: 'Paris 18 C, Tokyo 24 C.' },
        { role: 'user', content: 'Thanks!' },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather of a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      maxOutputTokens: 300,
      temperature: 0.4,
    });
    expect(recorded.method).toBe('POST');
    expect(recorded.path).toBe('/v1/chat/completions');
    expect(recorded.body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18 C, sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: '24 C, rain' },
        { role: 'assistant', content: 'Paris 18 C, Tokyo 24 C.' },
        { role: 'user', content: 'Thanks!' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city.',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300,
      temperature: 0.4,
    });
  });

  it('asks for text only with tool_choice none, keeping the tools, and sends no tool_choice by default', async () => {
    const tool = {
      name: 'get_weather',
      description: 'Weather of a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const textOnly = await send({
      model: 'gpt-4.1-mini',
      messages,
      tools: [tool],
      toolChoice: 'none',
    });
    expect(textOnly.body).toMatchObject({ tool_choice: 'none', tools: [{ type: 'function' }] });
    const auto = await send({ model: 'gpt-4.1-mini', messages, tools: [tool] });
    expect(auto.body).not.toHaveProperty('tool_choice');
    const noTools = await send({ model: 'gpt-4.1-mini', messages, toolChoice: 'none' });
    expect(noTools.body).not.toHaveProperty('tool_choice');
    expect(noTools.body).not.toHaveProperty('tools');
  });

  it('maps thinking levels to reasoning_effort on reasoning models and omits it for off', async () => {
    for (const level of ['low', 'medium', 'high'] as const) {
      const recorded = await send({
        model: 'o4-mini',
        messages: [{ role: 'user', content: 'Hi' }],
        thinkingLevel: level,
        maxOutputTokens: 500,
        temperature: 0.2,
      });
      const body = recorded.body as Record<string, unknown>;
      expect(body.reasoning_effort).toBe(level);
      // Reasoning models take max_completion_tokens and refuse a temperature.
      expect(body.max_completion_tokens).toBe(500);
      expect(body).not.toHaveProperty('max_tokens');
      expect(body).not.toHaveProperty('temperature');
    }
    const off = await send({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      thinkingLevel: 'off',
    });
    expect(off.body).not.toHaveProperty('reasoning_effort');
    // A model without reasoning runs any level as `off`, the nearest it supports.
    const unsupported = await send({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      thinkingLevel: 'high',
    });
    expect(unsupported.body).not.toHaveProperty('reasoning_effort');
    const plain = await send({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(Object.keys(plain.body as object).sort()).toEqual([
      'messages',
      'model',
      'stream',
      'stream_options',
    ]);
  });

  it('calls a keyless self-hosted server without an Authorization header', async () => {
    const recorded = await send(
      { model: 'llama3', messages: [{ role: 'user', content: 'Hi' }] },
      { keyless: true },
    );
    expect(recorded.auth.present).toBe(false);
    expect(recorded.headers).not.toHaveProperty('authorization');
  });

  it('sends the key as a bearer token', async () => {
    const recorded = await send({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(recorded.auth).toEqual({ present: true, valid: true });
  });

  it('needs a key for api.openai.com itself', async () => {
    const provider = new OpenAiCompatibleProvider({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: undefined,
      models: [],
      logger: quietLogger(),
    });
    const outcome = await chatOutcome(
      provider.chat(
        { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }] },
        new AbortController().signal,
      ),
    );
    expect(outcome.error).toMatchObject({ failure: 'auth_missing' });
  });
});
