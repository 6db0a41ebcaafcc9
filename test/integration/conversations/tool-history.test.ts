// Tool calls kept in a text conversation's history: a web search of one turn is replayed
// to the model on the next turn, in each vendor's wire format, so the model answers from
// the result it already has and the engine is not asked again.

import { FakeBraveSearch, type FakePage } from '../../fakes/web-search.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import {
  CONCIERGE_AFTER,
  CONCIERGE_EXAMPLES,
  CONCIERGE_SYSTEM,
  type ConversationRig,
  startConversationRig,
} from '../../helpers/conversations.ts';

const PAGES: FakePage[] = [
  {
    title: 'Opera tickets',
    url: 'https://opera.example/season',
    description: 'Tickets for the opera season go on sale on 1 December.',
  },
];
const SEARCH_INSTRUCTIONS =
  'You can search the web with the web_search tool when the user asks about current events or facts you are not sure of; say where an answer comes from when it matters.';
const FIRST = 'Good evening, Sam! I am Clara.';
const QUESTION = 'When can I buy opera tickets?';
const FOLLOW_UP = 'Which day was that again?';
const ARGUMENTS = JSON.stringify({ query: 'opera tickets' });
const RESULT = JSON.stringify({
  query: 'opera tickets',
  results: [
    {
      title: 'Opera tickets',
      url: 'https://opera.example/season',
      snippet: 'Tickets for the opera season go on sale on 1 December.',
    },
  ],
});

describeEachDialect('tool calls in the history of text conversations on %s', (dialect) => {
  let rig: ConversationRig;
  let brave: FakeBraveSearch;

  beforeAll(async ({ databases, apis }) => {
    brave = await FakeBraveSearch.start(PAGES);
    rig = await startConversationRig(await databases.get(dialect), apis, {
      BRAVE_SEARCH_API_KEY: brave.apiKey,
      BRAVE_SEARCH_API_BASE: brave.url,
    });
  });
  afterAll(async () => {
    await rig?.close();
    await brave?.close();
  });

  /** Two turns: the first searches, the second is answered from the replayed result. */
  async function twoTurns(provider: 'openai' | 'anthropic', callId: string) {
    const agentId = await rig.publishedAgent({
      llm_provider: provider,
      llm_model: provider === 'openai' ? 'gpt-4.1-mini' : 'claude-sonnet-4-6',
      web_search_enabled: true,
    });
    const fake = provider === 'openai' ? rig.openai : rig.anthropic;
    fake
      .script({
        text: ['Let me look. '],
        toolCalls: [{ id: callId, name: 'web_search', arguments: ARGUMENTS }],
      })
      .script({ text: ['Sales open on 1 December.'] })
      .script({ text: ['It was 1 December.'] });
    const searches = brave.requests.length;
    const first = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: QUESTION,
      user_name: 'Sam',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.message.text).toBe('Let me look. Sales open on 1 December.');
    expect(brave.requests.length - searches).toBe(1);
    const sent = fake.requests.length;
    const second = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id: first.body.conversation_id,
      text: FOLLOW_UP,
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.message.text).toBe('It was 1 December.');
    // One model call, no second search.
    expect(fake.requests.length - sent).toBe(1);
    expect(brave.requests.length - searches).toBe(1);
    return fake.requests.at(-1)?.body as { system?: string; messages: unknown[] };
  }

  it('replays the call and its result as Chat Completions tool_calls and a tool message', async () => {
    const body = await twoTurns('openai', 'call_search_1');
    expect(body.messages).toEqual([
      { role: 'system', content: CONCIERGE_SYSTEM },
      { role: 'system', content: SEARCH_INSTRUCTIONS },
      { role: 'system', content: CONCIERGE_EXAMPLES },
      { role: 'assistant', content: FIRST },
      { role: 'user', content: QUESTION },
      {
        role: 'assistant',
        content: 'Let me look. ',
        tool_calls: [
          {
            id: 'call_search_1',
            type: 'function',
            function: { name: 'web_search', arguments: ARGUMENTS },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_search_1', content: RESULT },
      { role: 'assistant', content: 'Sales open on 1 December.' },
      { role: 'user', content: FOLLOW_UP },
      { role: 'system', content: CONCIERGE_AFTER },
    ]);
  });

  it('replays the call and its result as Anthropic tool_use and tool_result blocks', async () => {
    const body = await twoTurns('anthropic', 'toolu_search_1');
    expect(body.system).toBe(
      [CONCIERGE_SYSTEM, SEARCH_INSTRUCTIONS, CONCIERGE_EXAMPLES, CONCIERGE_AFTER].join('\n\n'),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: '[Start a new chat]' },
      { role: 'assistant', content: FIRST },
      { role: 'user', content: QUESTION },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look. ' },
          {
            type: 'tool_use',
            id: 'toolu_search_1',
            name: 'web_search',
            input: { query: 'opera tickets' },
          },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_search_1', content: RESULT }],
      },
      { role: 'assistant', content: 'Sales open on 1 December.' },
      { role: 'user', content: FOLLOW_UP },
    ]);
  });
});
