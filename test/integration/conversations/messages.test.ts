// Text conversations with published Agents over the real api, against the OpenAI and
// Anthropic wire-protocol fakes: rendering, streaming, usage and credit, scoping, retries.
import {
  afterAll,
  beforeAll,
  describe,
  describeEachDialect,
  expect,
  it,
} from '../../fixtures/index.ts';
import {
  CONCIERGE_AFTER,
  CONCIERGE_EXAMPLES,
  CONCIERGE_SYSTEM,
  type ConversationRig,
  startConversationRig,
} from '../../helpers/conversations.ts';
import { readSse } from '../../helpers/sse.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const OTHER_USER = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const ANSWER = 'Hello there! How can I help?';
const FIRST = 'Good evening, Sam! I am Clara.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Turn = { role: 'user' | 'assistant'; content: string };

/** Each vendor: the model, the cost of the fakes' default usage (21 in, 9 out), and the body it must receive. */
const VENDORS = [
  {
    provider: 'openai',
    model: 'gpt-4.1-mini',
    // 21 x 1 + 9 x 4 millicredits (1,000 / 4,000 credits per 1M tokens).
    costMillicredits: 57,
    fake: (rig: ConversationRig) => rig.openai,
    body: (model: string, turns: Turn[]) => ({
      model,
      messages: [
        { role: 'system', content: CONCIERGE_SYSTEM },
        { role: 'system', content: CONCIERGE_EXAMPLES },
        ...turns,
        { role: 'system', content: CONCIERGE_AFTER },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 200,
    }),
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    // 21 x 3 + 9 x 15 millicredits (3,000 / 15,000 credits per 1M tokens).
    costMillicredits: 198,
    fake: (rig: ConversationRig) => rig.anthropic,
    body: (model: string, turns: Turn[]) => ({
      model,
      max_tokens: 200,
      system: [CONCIERGE_SYSTEM, CONCIERGE_EXAMPLES, CONCIERGE_AFTER].join('\n\n'),
      messages: [{ role: 'user', content: '[Start a new chat]' }, ...turns],
      stream: true,
    }),
  },
] as const;

const usageOf = (millicredits: number) => ({
  input_tokens: 21,
  output_tokens: 9,
  charge: { credits: millicredits / 1000, amount: millicredits / 1_000_000, currency: 'USD' },
});

describeEachDialect('text conversations on %s', (dialect) => {
  let rig: ConversationRig;

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get(dialect), apis);
  });
  afterAll(async () => {
    await rig?.close();
  });

  describe.each(VENDORS)('against the $provider fake', (vendor) => {
    let agentId: string;
    beforeAll(async () => {
      agentId = await rig.publishedAgent({
        llm_provider: vendor.provider,
        llm_model: vendor.model,
      });
    });

    it('answers in JSON, opens with first_mes, renders the card and charges the exact usage', async () => {
      const before = await rig.balance();
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
        text: 'Is the bar still open?',
        user_name: 'Sam',
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toEqual({
        conversation_id: expect.stringMatching(UUID),
        first_message: {
          id: expect.stringMatching(UUID),
          role: 'assistant',
          text: FIRST,
          created_at: expect.any(String),
        },
        user_message: {
          id: expect.stringMatching(UUID),
          role: 'user',
          text: 'Is the bar still open?',
          created_at: expect.any(String),
        },
        message: {
          id: expect.stringMatching(UUID),
          role: 'assistant',
          text: ANSWER,
          created_at: expect.any(String),
        },
        usage: usageOf(vendor.costMillicredits),
      });
      expect(await rig.balance()).toBe(before - vendor.costMillicredits);
      const turn1: Turn[] = [
        { role: 'assistant', content: FIRST },
        { role: 'user', content: 'Is the bar still open?' },
      ];
      expect(vendor.fake(rig).requests.at(-1)?.body).toEqual(vendor.body(vendor.model, turn1));

      // The next turn carries the whole conversation and keeps the end user's name.
      const next = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
        conversation_id: reply.body.conversation_id,
        text: 'Thanks!',
      });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.first_message).toBeNull();
      expect(vendor.fake(rig).requests.at(-1)?.body).toEqual(
        vendor.body(vendor.model, [
          ...turn1,
          { role: 'assistant', content: ANSWER },
          { role: 'user', content: 'Thanks!' },
        ]),
      );
      expect(await rig.balance()).toBe(before - 2 * vendor.costMillicredits);

      const listed = await rig.api(
        'GET',
        `/v1/agents/${agentId}/messages?conversation_id=${reply.body.conversation_id}`,
      );
      expect(listed.status).toBe(200);
      expect(
        listed.body.messages.map((m: { role: string; text: string }) => [m.role, m.text]),
      ).toEqual([
        ['assistant', FIRST],
        ['user', 'Is the bar still open?'],
        ['assistant', ANSWER],
        ['user', 'Thanks!'],
        ['assistant', ANSWER],
      ]);
      expect(listed.body.messages[0].usage).toBeNull();
      expect(listed.body.messages[2]).toEqual({
        ...reply.body.message,
        usage: usageOf(vendor.costMillicredits),
      });
      expect(listed.body.next_cursor).toBeNull();

      const rows = await rig.handle.db
        .selectFrom('llm_requests')
        .select([
          'status',
          'cost_millicredits',
          'input_tokens',
          'output_tokens',
          'audit_id',
          'reserved_millicredits',
        ])
        .where('request_id', '=', reply.headers.get('x-request-id') ?? '')
        .execute();
      expect(rows).toEqual([
        {
          status: 'succeeded',
          cost_millicredits: vendor.costMillicredits,
          input_tokens: 21,
          output_tokens: 9,
          audit_id: expect.stringMatching(/^aud_/),
          reserved_millicredits: 0,
        },
      ]);
    });

    it('streams the answer as server-sent events with usage and the exact charge', async () => {
      vendor.fake(rig).script({
        text: ['Until ', 'midnight', ', Sam.'],
        usage: { inputTokens: 21, outputTokens: 9 },
      });
      const before = await rig.balance();
      const response = await rig.stream(agentId, {
        text: 'Bar?',
        user_name: 'Sam',
        end_user_id: END_USER,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const events = await readSse(response);
      expect(events.map((e) => e.event)).toEqual([
        'conversation',
        'delta',
        'delta',
        'delta',
        'message',
        'usage',
        'done',
      ]);
      const [opened, , , , message, usage, done] = events;
      expect(opened?.data).toEqual({
        conversation_id: expect.stringMatching(UUID),
        first_message: {
          id: expect.any(String),
          role: 'assistant',
          text: FIRST,
          created_at: expect.any(String),
        },
        user_message: {
          id: expect.any(String),
          role: 'user',
          text: 'Bar?',
          created_at: expect.any(String),
        },
      });
      expect(events.slice(1, 4).map((e) => e.data)).toEqual([
        { text: 'Until ' },
        { text: 'midnight' },
        { text: ', Sam.' },
      ]);
      expect(message?.data).toEqual({
        id: expect.stringMatching(UUID),
        role: 'assistant',
        text: 'Until midnight, Sam.',
        created_at: expect.any(String),
      });
      expect(usage?.data).toEqual(usageOf(vendor.costMillicredits));
      expect(done?.data).toEqual({ conversation_id: opened?.data.conversation_id });
      expect(await rig.balance()).toBe(before - vendor.costMillicredits);
    });
  });

  it('sends the published card, not a later draft edit', async () => {
    const agentId = await rig.publishedAgent();
    const edited = await rig.api('PATCH', `/v1/agents/${agentId}`, { instructions: 'Be rude.' });
    expect(edited.status).toBe(200);
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      user_name: 'Sam',
    });
    expect(reply.status).toBe(200);
    const body = rig.openai.requests.at(-1)?.body as { messages: Turn[] };
    expect(body.messages[0]).toEqual({ role: 'system', content: CONCIERGE_SYSTEM });
  });

  it('scopes conversations to their end user', async () => {
    const agentId = await rig.publishedAgent();
    const opened = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      end_user_id: END_USER,
    });
    expect(opened.status).toBe(200);
    const id = opened.body.conversation_id;
    const list = (query: string) =>
      rig.api('GET', `/v1/agents/${agentId}/messages?conversation_id=${id}${query}`);
    expect((await list(`&end_user_id=${END_USER}`)).body.messages).toHaveLength(3);
    for (const query of [`&end_user_id=${OTHER_USER}`, '']) {
      const hidden = await list(query);
      expect({ status: hidden.status, code: hidden.body.code }).toEqual({
        status: 404,
        code: 'not_found',
      });
    }
    const posted = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id: id,
      end_user_id: OTHER_USER,
      text: 'Whose is this?',
    });
    expect({ status: posted.status, code: posted.body.code }).toEqual({
      status: 404,
      code: 'not_found',
    });
    const bad = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      end_user_id: 'user-1',
    });
    expect({ status: bad.status, code: bad.body.code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
    // Paging: two messages per page, in order.
    const page1 = await list(`&end_user_id=${END_USER}&limit=2`);
    expect(page1.body.messages).toHaveLength(2);
    const page2 = await list(`&end_user_id=${END_USER}&limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.messages.map((m: { text: string }) => m.text)).toEqual([ANSWER]);
    expect(page2.body.next_cursor).toBeNull();
  });

  it('requires end_user_id when the published Agent has memory, documents or calendar', async () => {
    for (const [field, code] of [
      ['memory_enabled', 'memory_identity_required'],
      ['documents_enabled', 'documents_identity_required'],
      ['calendar_enabled', 'calendar_identity_required'],
    ] as const) {
      const agentId = await rig.publishedAgent({ [field]: true });
      const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Hi' });
      expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 400, code });
      const ok = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
        text: 'Hi',
        end_user_id: END_USER,
      });
      expect(ok.status).toBe(200);
    }
  });

  it('refuses unpublished and unknown Agents', async () => {
    const draft = await rig.api('POST', '/v1/agents', { slug: 'conv-draft' });
    const unpublished = await rig.api('POST', `/v1/agents/${draft.body.id}/messages`, {
      text: 'Hi',
    });
    expect({ status: unpublished.status, code: unpublished.body.code }).toEqual({
      status: 409,
      code: 'agent_not_published',
    });
    const unknown = await rig.api(
      'POST',
      '/v1/agents/0190f5f2-7c1b-7000-8000-000000000000/messages',
      { text: 'Hi' },
    );
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({
      status: 404,
      code: 'not_found',
    });
  });

  it('removes conversations with their Agent and keeps the ledger rows', async () => {
    const agentId = await rig.publishedAgent();
    const opened = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Hi' });
    expect(opened.status).toBe(200);
    expect((await rig.api('DELETE', `/v1/agents/${agentId}`)).status).toBe(204);
    const left = await rig.handle.db
      .selectFrom('conversation_messages')
      .select('id')
      .where('conversation_id', '=', opened.body.conversation_id)
      .execute();
    expect(left).toEqual([]);
    const ledger = await rig.handle.db
      .selectFrom('llm_requests')
      .select('status')
      .where('agent_id', '=', agentId)
      .execute();
    expect(ledger).toEqual([{ status: 'succeeded' }]);
  });

  it('answers one message of a conversation at a time', async () => {
    const agentId = await rig.publishedAgent();
    const opened = await rig.api('POST', `/v1/agents/${agentId}/messages`, { text: 'Hi' });
    const conversation_id = opened.body.conversation_id;
    const calls = rig.openai.requests.length;
    rig.openai.script({ deltaDelayMs: 200 });
    const slow = rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id,
      text: 'First',
    });
    while (rig.openai.requests.length === calls) await new Promise((r) => setTimeout(r, 10));
    const second = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id,
      text: 'Second',
    });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'conflict', retryable: true });
    expect((await slow).status).toBe(200);
    const after = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id,
      text: 'Third',
    });
    expect(after.status).toBe(200);
    const listed = await rig.api(
      'GET',
      `/v1/agents/${agentId}/messages?conversation_id=${conversation_id}`,
    );
    expect(
      listed.body.messages
        .filter((m: { role: string }) => m.role === 'user')
        .map((m: { text: string }) => m.text),
    ).toEqual(['Hi', 'First', 'Third']);
  });

  it('answers a retried message_id once and charges it once', async () => {
    const agentId = await rig.publishedAgent();
    const messageId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    const before = await rig.balance();
    const calls = rig.openai.requests.length;
    const first = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      message_id: messageId,
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      message_id: messageId,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, first_message: null });
    const streamed = await readSse(
      await rig.stream(agentId, { text: 'Hi', message_id: messageId }),
    );
    expect(streamed.map((e) => e.event)).toEqual([
      'conversation',
      'delta',
      'message',
      'usage',
      'done',
    ]);
    expect(streamed[2]?.data).toEqual(first.body.message);
    expect(rig.openai.requests.length).toBe(calls + 1);
    expect(await rig.balance()).toBe(before - 57);
    const reused = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Other',
      message_id: messageId,
    });
    expect({ status: reused.status, code: reused.body.code }).toEqual({
      status: 409,
      code: 'conflict',
    });
  });
});
