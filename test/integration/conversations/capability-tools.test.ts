// Text conversations with an Agent's capability tools over the real api: the model calls
// a tool, the api runs it and sends the result back in a second call, the answer's usage
// is the sum and the credit charged exactly; the SSE stream shows each call.
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { readSse } from '../../helpers/sse.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const FACT = 'Prefers to be called Sam.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MEMORY_INTRO =
  'You have a long-term memory of this user across conversations. Use the remember tool to save lasting facts the user shares, and the forget tool when they ask you to forget something or a fact is no longer true. Never mention memory ids to the user.';

/** The memory tools exactly as the model is offered them (OpenAI Chat Completions shape). */
const MEMORY_TOOLS = [
  {
    type: 'function',
    function: {
      name: 'remember',
      description:
        'Save one lasting fact about the user for future conversations (a preference, a name, a plan, something they asked you to remember). One short, self-contained sentence in the third person. Do not save passing small talk.',
      parameters: {
        type: 'object',
        properties: {
          fact: {
            type: 'string',
            minLength: 1,
            maxLength: 500,
            description: 'The fact, for example "Prefers to be called Sam."',
          },
        },
        required: ['fact'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'forget',
      description:
        'Forget one remembered fact about the user, by its id (when the user asks you to forget it, or it is no longer true).',
      parameters: {
        type: 'object',
        properties: {
          memory_id: { type: 'string', description: 'The id shown with the fact in your memory.' },
        },
        required: ['memory_id'],
      },
    },
  },
];

type ChatBody = {
  messages: { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string }[];
  tools?: unknown;
  tool_choice?: string;
};

describeEachDialect('capability tools in text conversations on %s', (dialect) => {
  let rig: ConversationRig;
  let agentId: string;

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get(dialect), apis);
    agentId = await rig.publishedAgent({
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      memory_enabled: true,
    });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('runs the tool the model calls, answers in a second call and charges the summed usage', async () => {
    rig.openai
      .script({
        text: [],
        toolCalls: [{ id: 'call_1', name: 'remember', arguments: JSON.stringify({ fact: FACT }) }],
        usage: { inputTokens: 30, outputTokens: 12 },
      })
      .script({ text: ['Noted', ', Sam.'], usage: { inputTokens: 50, outputTokens: 5 } });
    const before = await rig.balance();
    const sent = rig.openai.requests.length;
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Call me Sam, please.',
      end_user_id: END_USER,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    // 80 input tokens at 1 millicredit, 17 output tokens at 4.
    const cost = 80 + 17 * 4;
    expect(reply.body.message.text).toBe('Noted, Sam.');
    expect(reply.body.usage).toEqual({
      input_tokens: 80,
      output_tokens: 17,
      charge: { credits: cost / 1000, amount: cost / 1_000_000, currency: 'USD' },
    });
    expect(await rig.balance()).toBe(before - cost);

    const [first, second] = rig.openai.requests.slice(sent).map((r) => r.body as ChatBody);
    expect(rig.openai.requests.length - sent).toBe(2);
    expect(first?.tools).toEqual(MEMORY_TOOLS);
    expect(first?.tool_choice).toBeUndefined();
    expect(first?.messages[1]).toEqual({
      role: 'system',
      content: `${MEMORY_INTRO}\nYou remember nothing about this user yet.`,
    });
    const memories = await rig.api('GET', `/v1/agents/${agentId}/memories?end_user_id=${END_USER}`);
    expect(memories.status).toBe(200);
    expect(memories.body.memories).toEqual([
      {
        id: expect.stringMatching(UUID),
        agent_id: agentId,
        end_user_id: END_USER,
        text: FACT,
        source: 'agent',
        created_at: expect.any(String),
      },
    ]);
    const memoryId = memories.body.memories[0].id;
    expect(second?.tools).toEqual(MEMORY_TOOLS);
    expect(second?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'remember', arguments: JSON.stringify({ fact: FACT }) },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: JSON.stringify({ saved: { id: memoryId, fact: FACT } }),
      },
    ]);

    // One ledger row holds the turn: both calls' tokens, the exact cost, nothing reserved.
    const rows = await rig.handle.db
      .selectFrom('llm_requests')
      .select([
        'status',
        'cost_millicredits',
        'input_tokens',
        'output_tokens',
        'reserved_millicredits',
      ])
      .where('request_id', '=', reply.headers.get('x-request-id') ?? '')
      .execute();
    expect(rows).toEqual([
      {
        status: 'succeeded',
        cost_millicredits: cost,
        input_tokens: 80,
        output_tokens: 17,
        reserved_millicredits: 0,
      },
    ]);

    // The next conversation of the same end user begins with the memory.
    rig.openai.script({ text: ['Hello again, Sam.'] });
    const later = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi!',
      end_user_id: END_USER,
    });
    expect(later.status).toBe(200);
    expect((rig.openai.requests.at(-1)?.body as ChatBody | undefined)?.messages[1]).toEqual({
      role: 'system',
      content: `${MEMORY_INTRO}\nWhat you remember about this user, oldest first:\n- ${FACT} (id ${memoryId})`,
    });
  });

  it('sends tool_use and tool_result blocks back to Anthropic', async () => {
    const anthropicAgent = await rig.publishedAgent({
      llm_provider: 'anthropic',
      llm_model: 'claude-sonnet-4-6',
      memory_enabled: true,
    });
    rig.anthropic
      .script({
        text: ['One moment.'],
        toolCalls: [{ id: 'toolu_1', name: 'remember', arguments: '{"fact":"Lives in Lyon."}' }],
      })
      .script({ text: ['Got it.'] });
    const sent = rig.anthropic.requests.length;
    const reply = await rig.api('POST', `/v1/agents/${anthropicAgent}/messages`, {
      text: 'I live in Lyon.',
      end_user_id: END_USER,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.message.text).toBe('One moment.Got it.');
    const memories = await rig.api(
      'GET',
      `/v1/agents/${anthropicAgent}/memories?end_user_id=${END_USER}`,
    );
    const [memory] = memories.body.memories;
    expect(memory.text).toBe('Lives in Lyon.');
    const second = rig.anthropic.requests[sent + 1]?.body as {
      messages: { role: string; content: unknown }[];
      tools: { name: string }[];
    };
    expect(second.tools.map((t) => t.name)).toEqual(['remember', 'forget']);
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'One moment.' },
          { type: 'tool_use', id: 'toolu_1', name: 'remember', input: { fact: 'Lives in Lyon.' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: JSON.stringify({ saved: { id: memory.id, fact: 'Lives in Lyon.' } }),
          },
        ],
      },
    ]);
  });

  it('streams tool_call and tool_result events before the answer', async () => {
    rig.openai
      .script({
        text: ['Let me note that. '],
        toolCalls: [
          { id: 'call_2', name: 'remember', arguments: '{"fact":"Has a dog named Rex."}' },
        ],
      })
      .script({ text: ['Done.'] });
    const response = await rig.stream(agentId, { text: 'My dog is Rex.', end_user_id: END_USER });
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual([
      'conversation',
      'delta',
      'tool_call',
      'tool_result',
      'delta',
      'message',
      'usage',
      'done',
    ]);
    expect(events[2]?.data).toEqual({ id: 'call_2', name: 'remember' });
    expect(events[3]?.data).toEqual({ id: 'call_2', name: 'remember', ok: true });
    expect(events[5]?.data.text).toBe('Let me note that. Done.');
  });

  it('tells the model when a call fails, and the turn still answers', async () => {
    rig.openai
      .script({
        text: [],
        toolCalls: [
          { id: 'call_3', name: 'forget', arguments: '{"memory_id":"no-such-memory"}' },
          { id: 'call_4', name: 'remember', arguments: '{"fact": 7}' },
          { id: 'call_5', name: 'remember', arguments: 'not json' },
        ],
      })
      .script({ text: ['Sorry, I could not.'] });
    const sent = rig.openai.requests.length;
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Forget that.',
      end_user_id: END_USER,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const second = rig.openai.requests[sent + 1]?.body as ChatBody;
    expect(second.messages.slice(-3)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_3',
        content: JSON.stringify({ error: 'No remembered fact has the id no-such-memory.' }),
      },
      {
        role: 'tool',
        tool_call_id: 'call_4',
        content: JSON.stringify({
          error:
            "The arguments do not fit the tool's parameters: fact: Invalid input: expected string, received number",
        }),
      },
      {
        role: 'tool',
        tool_call_id: 'call_5',
        content: JSON.stringify({ error: 'The arguments were not valid JSON.' }),
      },
    ]);
  });

  it('makes the last call of a turn answer in text after three rounds of tools', async () => {
    const call = (id: string) => ({
      text: [],
      toolCalls: [{ id, name: 'remember', arguments: `{"fact":"Likes round ${id}."}` }],
    });
    rig.openai
      .script(call('r1'))
      .script(call('r2'))
      .script(call('r3'))
      .script({ ...call('r4'), text: ['Enough remembering.'] });
    const sent = rig.openai.requests.length;
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Remember everything.',
      end_user_id: END_USER,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const bodies = rig.openai.requests.slice(sent).map((r) => r.body as ChatBody);
    expect(bodies.map((b) => b.tool_choice)).toEqual([undefined, undefined, undefined, 'none']);
    expect(reply.body.message.text).toBe('Enough remembering.');
    const memories = await rig.api('GET', `/v1/agents/${agentId}/memories?end_user_id=${END_USER}`);
    const texts = memories.body.memories.map((m: { text: string }) => m.text);
    expect(texts.filter((t: string) => t.startsWith('Likes round'))).toEqual([
      'Likes round r1.',
      'Likes round r2.',
      'Likes round r3.',
    ]);
  });

  it('fails with 402 and charges nothing when the credit cannot cover the next call', async () => {
    rig.openai
      .script({
        text: [],
        toolCalls: [{ id: 'call_6', name: 'remember', arguments: '{"fact":"Is broke."}' }],
        firstTokenDelayMs: 500,
      })
      .script({ text: ['Never sent.'] });
    const sent = rig.openai.requests.length;
    const pending = rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Go.',
      end_user_id: END_USER,
    });
    // The first call is running with its credit held: the rest of the balance goes away.
    while (rig.openai.requests.length === sent) await new Promise((r) => setTimeout(r, 20));
    const held = await rig.handle.db
      .selectFrom('llm_requests')
      .select('reserved_millicredits')
      .where('status', '=', 'started')
      .executeTakeFirstOrThrow();
    await rig.handle.db
      .updateTable('workspaces')
      .set({ credit_balance_millicredits: 0 })
      .where('id', '=', rig.ws.workspaceId)
      .execute();
    const reply = await pending;
    expect(reply.status).toBe(402);
    expect(reply.body.code).toBe('insufficient_credit');
    expect(rig.openai.requests.length - sent).toBe(1);
    const row = await rig.handle.db
      .selectFrom('llm_requests')
      .select(['status', 'error_code', 'cost_millicredits', 'reserved_millicredits'])
      .where('request_id', '=', reply.headers.get('x-request-id') ?? '')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      status: 'failed',
      error_code: 'insufficient_credit',
      cost_millicredits: 0,
      reserved_millicredits: 0,
    });
    // The first call's reservation came back whole: nothing was charged.
    expect(Number(held.reserved_millicredits)).toBeGreaterThan(0);
    expect(await rig.balance()).toBe(Number(held.reserved_millicredits));
    await rig.handle.db
      .updateTable('workspaces')
      .set({ credit_balance_millicredits: 1_000_000 })
      .where('id', '=', rig.ws.workspaceId)
      .execute();
  });
});
