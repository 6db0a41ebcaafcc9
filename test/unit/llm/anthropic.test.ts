import { afterAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/llm/anthropic/provider.ts';
import type { LlmChatRequest, LlmEvent } from '../../../src/llm/provider.ts';
import { FakeAnthropicMessages, type LlmScript } from '../../fakes/anthropic-messages.ts';
import { runLlmAdapterConformance } from './conformance.ts';
import { chatOutcome, memoryLogger } from './helpers.ts';

const quietLogger = () => memoryLogger().logger;

runLlmAdapterConformance<FakeAnthropicMessages>({
  name: 'anthropic',
  startFake: (options) => FakeAnthropicMessages.start(options),
  makeProvider: (fake, settings) =>
    new AnthropicProvider({
      baseUrl: fake.url,
      apiKey: 'apiKey' in settings ? settings.apiKey : (fake.apiKey ?? undefined),
      models: [],
      logger: settings.logger ?? quietLogger(),
      ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    }),
  model: 'claude-haiku-4-5',
  extraStatuses: { 529: 'overloaded', 413: 'rejected' },
  streamError: { type: 'overloaded_error', failure: 'overloaded' },
  requestIdHeader: 'request-id',
});

describe('Anthropic request body', () => {
  const fakes: FakeAnthropicMessages[] = [];
  afterAll(async () => {
    await Promise.all(fakes.map((fake) => fake.close()));
  });

  async function send(request: LlmChatRequest, script: LlmScript = {}) {
    const fake = await FakeAnthropicMessages.start();
    fakes.push(fake);
    fake.script(script);
    const provider = new AnthropicProvider({
      baseUrl: fake.url,
      apiKey: fake.apiKey ?? undefined,
      models: [],
      logger: quietLogger(),
    });
    const outcome = await chatOutcome(provider.chat(request, new AbortController().signal));
    expect(outcome.error).toBeUndefined();
    const recorded = fake.requests[0];
    if (!recorded) throw new Error('no request reached the fake');
    return { recorded, events: outcome.events };
  }

  const weather = {
    name: 'get_weather',
    description: 'Weather of a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  };

  it('puts a user turn before a conversation that opens with the assistant', async () => {
    const { recorded } = await send({
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'system', content: 'You are Clara.' },
        { role: 'assistant', content: 'Good evening!' },
        { role: 'user', content: 'Hi' },
      ],
      maxOutputTokens: 64,
    });
    expect(recorded.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      system: 'You are Clara.',
      messages: [
        { role: 'user', content: '[Start a new chat]' },
        { role: 'assistant', content: 'Good evening!' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
    });
  });

  it('maps a whole tool-use conversation exactly: top-level system, tool_use and tool_result blocks', async () => {
    const { recorded } = await send({
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: 'Checking.',
          toolCalls: [
            { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_1', content: '18 C, sunny' },
        { role: 'tool', toolCallId: 'toolu_2', content: '24 C, rain' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [weather],
      temperature: 0.3,
    });
    expect(recorded.path).toBe('/v1/messages');
    expect(recorded.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(recorded.auth).toEqual({ present: true, valid: true });
    expect(recorded.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Tokyo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18 C, sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '24 C, rain' },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather of a city.',
          input_schema: weather.parameters,
        },
      ],
      stream: true,
    });
  });

  it('asks for text only with tool_choice none, keeping the tools, and sends no tool_choice by default', async () => {
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const textOnly = await send({
      model: 'claude-haiku-4-5',
      messages,
      tools: [weather],
      toolChoice: 'none',
    });
    expect(textOnly.recorded.body).toMatchObject({
      tool_choice: { type: 'none' },
      tools: [{ name: 'get_weather' }],
    });
    const auto = await send({ model: 'claude-haiku-4-5', messages, tools: [weather] });
    expect(auto.recorded.body).not.toHaveProperty('tool_choice');
  });

  it('maps thinking levels to budgets with max_tokens above them, and off to no thinking', async () => {
    const budgets = { low: 1024, medium: 4096, high: 16_384 } as const;
    for (const [level, budget] of Object.entries(budgets)) {
      const { recorded } = await send({
        model: 'claude-sonnet-4-6',
        messages: [{ role: 'user', content: 'Hi' }],
        thinkingLevel: level as keyof typeof budgets,
        maxOutputTokens: 1000,
      });
      const body = recorded.body as Record<string, unknown>;
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(body.max_tokens).toBe(budget + 1000);
    }
    const { recorded } = await send({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'Hi' }],
      thinkingLevel: 'off',
    });
    expect(recorded.body).not.toHaveProperty('thinking');
    expect((recorded.body as { max_tokens: number }).max_tokens).toBe(4096);
  });

  it('returns thinking blocks with the tool calls and sends them back in the tool-use loop', async () => {
    const first = await send(
      {
        model: 'claude-sonnet-4-6',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [weather],
        thinkingLevel: 'low',
      },
      {
        thinking: 'The user wants the weather.',
        toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
    );
    const done = first.events.at(-1) as Extract<LlmEvent, { type: 'done' }>;
    expect(done.finishReason).toBe('tool_calls');
    expect(done.reasoning).toEqual([
      { type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-27' },
    ]);
    const call = { id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Oslo"}' };
    const history: LlmChatRequest['messages'] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [call],
        ...(done.reasoning ? { reasoning: done.reasoning } : {}),
      },
      { role: 'tool', toolCallId: 'toolu_9', content: '5 C' },
    ];
    const second = await send({
      model: 'claude-sonnet-4-6',
      messages: history,
      tools: [weather],
      thinkingLevel: 'low',
    });
    const body = second.recorded.body as {
      messages: Array<{ content: unknown }>;
      thinking?: unknown;
    };
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(body.messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'The user wants the weather.', signature: 'sig-27' },
      { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    // Without the reasoning kept, the continuation runs without thinking instead of failing.
    const withoutReasoning = history.map((m) =>
      m.role === 'assistant' ? { role: m.role, content: m.content, toolCalls: [call] } : m,
    );
    const third = await send({
      model: 'claude-sonnet-4-6',
      messages: withoutReasoning,
      tools: [weather],
      thinkingLevel: 'low',
    });
    expect(third.recorded.body).not.toHaveProperty('thinking');
  });
});
