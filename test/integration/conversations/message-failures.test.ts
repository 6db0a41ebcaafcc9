// Text conversations that do not get an answer: no credit, vendor failures, stalls and a
// client that leaves mid-answer. None of them may charge anything or leave a message.

import { LlmLedger } from '../../../src/billing/llm-ledger.ts';
import { ConversationStore } from '../../../src/conversations/conversation-store.ts';
import type { LlmFakeFailure } from '../../fakes/llm-server.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { apiClient } from '../../helpers/agents.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { readSse } from '../../helpers/sse.ts';

const FAILURES: {
  name: string;
  provider: 'openai' | 'anthropic';
  failure: LlmFakeFailure;
  status: number;
  code: string;
  retryable: boolean;
  retryAfter?: string;
}[] = [
  {
    name: 'openai 401',
    provider: 'openai',
    failure: { kind: 'status', status: 401 },
    status: 502,
    code: 'provider_error',
    retryable: false,
  },
  {
    name: 'anthropic 401',
    provider: 'anthropic',
    failure: { kind: 'status', status: 401 },
    status: 502,
    code: 'provider_error',
    retryable: false,
  },
  {
    name: 'openai 429',
    provider: 'openai',
    failure: { kind: 'status', status: 429, retryAfterSeconds: 7 },
    status: 503,
    code: 'provider_unavailable',
    retryable: true,
    retryAfter: '7',
  },
  {
    name: 'anthropic 529',
    provider: 'anthropic',
    failure: { kind: 'status', status: 529 },
    status: 503,
    code: 'provider_unavailable',
    retryable: true,
  },
  {
    name: 'openai stall before the first token',
    provider: 'openai',
    failure: { kind: 'hang' },
    status: 502,
    code: 'provider_error',
    retryable: true,
  },
];

describeEachDialect('text conversations that fail on %s', (dialect) => {
  let rig: ConversationRig;
  const agents: Record<string, string> = {};

  /** The ledger row of a request and whether its user message is still stored. */
  const ledgerRow = async (requestId: string) => {
    const row = await rig.handle.db
      .selectFrom('llm_requests')
      .select([
        'status',
        'error_code',
        'cost_millicredits',
        'reserved_millicredits',
        'user_message_id',
      ])
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
    const kept = await rig.handle.db
      .selectFrom('conversation_messages')
      .select('id')
      .where('id', '=', row.user_message_id ?? '')
      .execute();
    return { ...row, user_message_id: undefined, userMessageKept: kept.length > 0 };
  };

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get(dialect), apis);
    agents.openai = await rig.publishedAgent({ llm_provider: 'openai' });
    agents.anthropic = await rig.publishedAgent({ llm_provider: 'anthropic' });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('refuses with 402 when the credit cannot cover the worst case, and changes nothing', async () => {
    const poor = await seedWorkspace(rig.handle, { credits: 0.5 });
    const client = apiClient(rig.server.url, poor.productionKey);
    const agentId = await rig.publishedAgent({}, client);
    const calls = rig.openai.requests.length;
    const reply = await client('POST', `/v1/agents/${agentId}/messages`, { text: 'Hi' });
    expect(reply.status).toBe(402);
    expect(reply.body).toMatchObject({ code: 'insufficient_credit', retryable: false });
    expect(await rig.balance(poor.workspaceId)).toBe(500);
    expect(rig.openai.requests.length).toBe(calls);
    const conversations = await rig.handle.db
      .selectFrom('conversations')
      .select('id')
      .where('workspace_id', '=', poor.workspaceId)
      .execute();
    expect(conversations).toEqual([]);
    expect(await ledgerRow(reply.headers.get('x-request-id') ?? '')).toEqual({
      status: 'failed',
      error_code: 'insufficient_credit',
      cost_millicredits: 0,
      reserved_millicredits: 0,
      user_message_id: undefined,
      userMessageKept: false,
    });
  });

  it.each(FAILURES)('maps $name to the error object and refunds the reservation', async (c) => {
    const fake = c.provider === 'openai' ? rig.openai : rig.anthropic;
    fake.script({ failure: c.failure });
    const before = await rig.balance();
    const reply = await rig.api('POST', `/v1/agents/${agents[c.provider]}/messages`, {
      text: 'Hi',
    });
    expect(reply.status).toBe(c.status);
    expect(reply.body).toEqual({
      event: 'error',
      request_id: reply.headers.get('x-request-id'),
      code: c.code,
      retryable: c.retryable,
      detail: expect.any(String),
    });
    expect(reply.headers.get('retry-after')).toBe(c.retryAfter ?? null);
    expect(await rig.balance()).toBe(before);
    expect(await ledgerRow(reply.headers.get('x-request-id') ?? '')).toEqual({
      status: 'failed',
      error_code: c.code,
      cost_millicredits: 0,
      reserved_millicredits: 0,
      user_message_id: undefined,
      userMessageKept: false,
    });
    // The fake saw the call end: answered, or closed by us after the timeout.
    expect(await fake.requests.at(-1)?.ended).not.toBe('pending');
  });

  it('ends a stream that stalls mid-answer with a retryable error event', async () => {
    rig.openai.script({
      text: ['One', ' two', ' three'],
      failure: { kind: 'stall_after_deltas', deltas: 2 },
    });
    const before = await rig.balance();
    const response = await rig.stream(agents.openai ?? '', { text: 'Count' });
    expect(response.status).toBe(200);
    const events = await readSse(response);
    expect(events.map((e) => e.event)).toEqual(['conversation', 'delta', 'delta', 'error']);
    expect(events[3]?.data).toEqual({
      event: 'error',
      request_id: response.headers.get('x-request-id'),
      code: 'provider_error',
      retryable: true,
      detail: expect.any(String),
    });
    expect(await rig.openai.requests.at(-1)?.ended).toBe('client_closed');
    expect(await rig.balance()).toBe(before);
    const conversationId = events[0]?.data.conversation_id;
    const listed = await rig.api(
      'GET',
      `/v1/agents/${agents.openai}/messages?conversation_id=${conversationId}`,
    );
    expect(listed.body.messages.map((m: { role: string }) => m.role)).toEqual(['assistant']);
  });

  it('closes a turn of a peer that died after the sweeping process started', async () => {
    const sweeper = new LlmLedger(rig.handle.db, 'api@live-host:2');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const opened = await rig.api('POST', `/v1/agents/${agents.openai}/messages`, { text: 'Hi' });
    const before = await rig.balance();
    const requestId = '01900000-0000-7000-8000-00000000dea2';
    await new LlmLedger(rig.handle.db, 'api@late-dead-host:1').start({
      requestId,
      auditId: 'aud_01900000-0000-7000-8000-00000000dea2',
      workspaceId: rig.ws.workspaceId,
      environment: 'production',
      apiKeyId: null,
      source: 'messages',
      agentId: agents.openai ?? '',
      publicationId: 'p',
      conversationId: opened.body.conversation_id as string,
      conversationIsNew: false,
      userMessageId: null,
      provider: 'openai',
      model: {
        name: 'gpt-4.1-mini',
        inputMillicreditsPer1M: 1_000_000,
        outputMillicreditsPer1M: 4_000_000,
      },
      reserveMillicredits: 99,
    });
    expect(await rig.balance()).toBe(before - 99);
    expect(await sweeper.closeAbandoned(60_000)).toBe(1);
    expect(await rig.balance()).toBe(before);
  });

  it('closes a turn left open by a dead process: refunded, its message removed', async () => {
    const opened = await rig.api('POST', `/v1/agents/${agents.openai}/messages`, { text: 'Hi' });
    const conversationId = opened.body.conversation_id as string;
    const before = await rig.balance();
    const dead = new LlmLedger(rig.handle.db, 'api@dead-host:1');
    const store = new ConversationStore(rig.handle.db);
    const requestId = '01900000-0000-7000-8000-00000000dead';
    const userMessageId = '01900000-0000-7000-8000-0000000000aa';
    await dead.start(
      {
        requestId,
        auditId: 'aud_01900000-0000-7000-8000-00000000dead',
        workspaceId: rig.ws.workspaceId,
        environment: 'production',
        apiKeyId: null,
        source: 'messages',
        agentId: agents.openai ?? '',
        publicationId: 'p',
        conversationId,
        conversationIsNew: false,
        userMessageId,
        provider: 'openai',
        model: {
          name: 'gpt-4.1-mini',
          inputMillicreditsPer1M: 1_000_000,
          outputMillicreditsPer1M: 4_000_000,
        },
        reserveMillicredits: 1234,
      },
      (trx) =>
        store.append(trx, {
          id: userMessageId,
          conversationId,
          workspaceId: rig.ws.workspaceId,
          role: 'user',
          text: 'Lost',
          createdAt: new Date().toISOString(),
        }),
    );
    expect(await rig.balance()).toBe(before - 1234);
    // Another turn of this conversation waits for the open one.
    const blocked = await rig.api('POST', `/v1/agents/${agents.openai}/messages`, {
      conversation_id: conversationId,
      text: 'Hello?',
    });
    expect(blocked.body).toMatchObject({ code: 'conflict', retryable: true });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const sweeper = new LlmLedger(rig.handle.db, 'api@live-host:1');
    expect(await sweeper.closeAbandoned(60_000)).toBe(1);
    expect(await sweeper.closeAbandoned(60_000)).toBe(0);
    expect(await rig.balance()).toBe(before);
    expect(await ledgerRow(requestId)).toEqual({
      status: 'failed',
      error_code: 'internal_error',
      cost_millicredits: 0,
      reserved_millicredits: 0,
      user_message_id: undefined,
      userMessageKept: false,
    });
    const next = await rig.api('POST', `/v1/agents/${agents.openai}/messages`, {
      conversation_id: conversationId,
      text: 'Hello?',
    });
    expect(next.status).toBe(200);
  });

  it('stops the model call when the client leaves mid-stream and charges nothing', async () => {
    rig.anthropic.script({
      text: Array.from({ length: 20 }, (_, i) => `w${i} `),
      deltaDelayMs: 150,
    });
    const before = await rig.balance();
    const controller = new AbortController();
    const response = await rig.stream(agents.anthropic ?? '', { text: 'Talk' }, controller.signal);
    const events = await readSse(response, (event) => event.event === 'delta');
    controller.abort();
    expect(events.map((e) => e.event)).toEqual(['conversation', 'delta']);
    const call = rig.anthropic.requests.at(-1);
    expect(await call?.ended).toBe('client_closed');
    expect(call?.framesSent).toBeLessThan(20);
    const requestId = response.headers.get('x-request-id') ?? '';
    let row = await ledgerRow(requestId);
    for (let i = 0; i < 50 && row.status === 'started'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      row = await ledgerRow(requestId);
    }
    expect(row).toEqual({
      status: 'cancelled',
      error_code: null,
      cost_millicredits: 0,
      reserved_millicredits: 0,
      user_message_id: undefined,
      userMessageKept: false,
    });
    expect(await rig.balance()).toBe(before);
  });
});
