import { initializeLogger, llm } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../src/llm/openai-compatible/provider.ts';
import { AwpLlm, type AwpLlmOptions } from '../../../worker/models/awp-llm.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { memoryLogger } from '../llm/helpers.ts';

// The worker's LiveKit LLM over the provider seam, against the OpenAI wire-protocol fake:
// what the framework's toolChoice turns into on the wire, and what comes back out of it.

const LOOKUP = {
  name: 'lookup_order',
  description: 'Finds an order.',
  parameters: { type: 'object', properties: { id: { type: 'string' } } },
};

let fake: FakeOpenAiChat;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'fatal' });
  fake = await FakeOpenAiChat.start();
});

afterAll(async () => {
  await fake.close();
});

function awpLlm(options: Partial<AwpLlmOptions> = {}): AwpLlm {
  return new AwpLlm({
    provider: new OpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey ?? undefined,
      models: [],
      logger: memoryLogger().logger,
    }),
    model: 'gpt-4.1-mini',
    thinkingLevel: 'off',
    ...options,
  });
}

/** One call: the request body the vendor saw, and the text and tool calls the framework got. */
async function call(model: AwpLlm, toolChoice?: llm.ToolChoice) {
  const chatCtx = llm.ChatContext.empty();
  chatCtx.addMessage({ role: 'user', content: 'Where is my order?' });
  const before = fake.requests.length;
  const stream = model.chat({ chatCtx, ...(toolChoice ? { toolChoice } : {}) });
  let text = '';
  const toolCalls: string[] = [];
  for await (const chunk of stream) {
    text += chunk.delta?.content ?? '';
    for (const toolCall of chunk.delta?.toolCalls ?? []) toolCalls.push(toolCall.name);
  }
  const body = fake.requests[before]?.body as Record<string, unknown>;
  return { body, text, toolCalls };
}

describe('AwpLlm and the framework’s toolChoice', () => {
  it('passes tool calls through by default and sends no tool_choice', async () => {
    const model = awpLlm({ tools: () => [LOOKUP] });
    fake.script({ text: ['One moment.'], toolCalls: [{ name: 'lookup_order', arguments: '{}' }] });

    const result = await call(model);

    expect(result.body).not.toHaveProperty('tool_choice');
    expect(result).toMatchObject({ text: 'One moment.', toolCalls: ['lookup_order'] });
  });

  it('asks for text only with toolChoice none, and drops a tool call that comes back anyway', async () => {
    const model = awpLlm({ tools: () => [LOOKUP] });
    fake.script({
      text: ['It has shipped.'],
      toolCalls: [{ name: 'lookup_order', arguments: '{}' }],
    });

    const result = await call(model, 'none');

    expect(result.body).toMatchObject({ tool_choice: 'none', tools: [{ type: 'function' }] });
    expect(result).toMatchObject({ text: 'It has shipped.', toolCalls: [] });
  });

  it('does not stay quiet when asked for text only', async () => {
    const declined: string[] = [];
    const model = awpLlm({ onDeclined: (reason) => declined.push(reason) });
    fake.script({
      text: ['Hello.'],
      toolCalls: [{ name: 'stay_quiet', arguments: '{"reason":"not addressed"}' }],
    });

    const textOnly = await call(model, 'none');
    expect(textOnly.body).toMatchObject({ tool_choice: 'none' });
    expect(textOnly.text).toBe('Hello.');
    expect(declined).toEqual([]);

    fake.script({ toolCalls: [{ name: 'stay_quiet', arguments: '{"reason":"not addressed"}' }] });
    await call(model);
    expect(declined).toEqual(['not addressed']);
  });
});
