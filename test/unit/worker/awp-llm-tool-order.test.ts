import { initializeLogger, llm } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../src/llm/openai-compatible/provider.ts';
import { AwpLlm } from '../../../worker/models/awp-llm.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { memoryLogger } from '../llm/helpers.ts';

// Tool results reach the vendor in the order of the calls, right after them, whatever order
// the framework recorded them in (concurrent calls finish in any order).

const SEARCH = {
  name: 'web_search',
  description: 'Searches.',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};

let fake: FakeOpenAiChat;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'fatal' });
  fake = await FakeOpenAiChat.start();
});

afterAll(async () => {
  await fake.close();
});

async function wireMessages(chatCtx: llm.ChatContext): Promise<unknown[]> {
  const model = new AwpLlm({
    provider: new OpenAiCompatibleProvider({
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey ?? undefined,
      models: [],
      logger: memoryLogger().logger,
    }),
    model: 'gpt-4.1-mini',
    thinkingLevel: 'off',
    tools: () => [SEARCH],
  });
  const before = fake.requests.length;
  for await (const _ of model.chat({ chatCtx })) {
    // drain
  }
  return (fake.requests[before]?.body as { messages?: unknown[] } | undefined)?.messages ?? [];
}

const call = (id: string, at: number, itemId?: string) =>
  llm.FunctionCall.create({
    ...(itemId ? { id: itemId } : {}),
    callId: id,
    name: 'web_search',
    args: `{"query":"${id}"}`,
    createdAt: at,
  });
const output = (id: string, at: number) =>
  llm.FunctionCallOutput.create({
    callId: id,
    name: 'web_search',
    output: `"${id} done"`,
    isError: false,
    createdAt: at,
  });

describe('AwpLlm tool results', () => {
  it('follow their calls in call order, before a message placed among them', async () => {
    const chatCtx = llm.ChatContext.empty();
    chatCtx.addMessage({ role: 'user', content: 'Weather?', createdAt: 1 });
    chatCtx.insert([call('a', 2), call('b', 3)]);
    chatCtx.addMessage({
      role: 'assistant',
      content: 'One moment,',
      interrupted: true,
      createdAt: 4,
    });
    chatCtx.insert([output('b', 5), output('a', 6)]);
    chatCtx.insert([call('c', 7), output('c', 8)]);
    expect(await wireMessages(chatCtx)).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'a',
            type: 'function',
            function: { name: 'web_search', arguments: '{"query":"a"}' },
          },
          {
            id: 'b',
            type: 'function',
            function: { name: 'web_search', arguments: '{"query":"b"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: '"a done"' },
      { role: 'tool', tool_call_id: 'b', content: '"b done"' },
      // A later call joins the assistant message before it, as always.
      {
        role: 'assistant',
        content: 'One moment,',
        tool_calls: [
          {
            id: 'c',
            type: 'function',
            function: { name: 'web_search', arguments: '{"query":"c"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c', content: '"c done"' },
    ]);
  });

  it('follow the order the model made the calls when the context recorded them in another', async () => {
    // The framework records a step's calls when they finish, each with the time it read
    // them: calls read in one millisecond tie, and the context keeps them in finishing order.
    // Its item ids keep the step's order (`<step>/fnc_<n>`).
    const chatCtx = llm.ChatContext.empty();
    chatCtx.addMessage({ role: 'user', content: 'Weather?', createdAt: 1 });
    chatCtx.insert([
      call('c1', 2, 'step_a/fnc_0'),
      call('c3', 2, 'step_a/fnc_2'),
      call('c2', 2, 'step_a/fnc_1'),
      output('c3', 3),
      output('c2', 4),
      output('c1', 5),
    ]);
    const messages = (await wireMessages(chatCtx)) as {
      role: string;
      tool_call_id?: string;
      tool_calls?: { id: string }[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool']);
    expect(messages[1]?.tool_calls?.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    expect(messages.slice(2).map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
  });
});
