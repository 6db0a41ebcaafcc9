// Text conversations through the server SDK against the real api and the OpenAI
// wire-protocol fake: JSON answers, streamed answers event by event, a provider failure
// mid-stream as its typed error, and a failure before the answer as an ordinary one.

import {
  AwpClient,
  type MessageStreamEvent,
  ProviderError,
} from '../../../backend-sdk/src/index.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const MODEL = { llm_provider: 'openai', llm_model: 'gpt-4.1-mini' };
const ANSWER = 'Hello there! How can I help?';

async function collect(events: AsyncIterable<MessageStreamEvent>): Promise<MessageStreamEvent[]> {
  const seen: MessageStreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('server SDK text conversations', () => {
  dialectSuite('sqlite');
  let rig: ConversationRig;
  let client: AwpClient;
  let agentId: string;

  beforeAll(
    async ({ databases, apis }) => {
      rig = await startConversationRig(await databases.get('sqlite'), apis);
      client = new AwpClient({ apiKey: rig.ws.productionKey, baseUrl: rig.server.url });
      agentId = await rig.publishedAgent(MODEL);
    },
    budget({ servers: 1 }),
  );

  afterAll(async () => {
    await rig?.close();
  });

  it('answers in JSON, continues the conversation and lists it', async () => {
    const first = await client.agents.sendMessage(agentId, { text: 'Hi!', user_name: 'Sam' });
    expect(first.message).toMatchObject({ role: 'assistant', text: ANSWER });
    expect(first.first_message?.text).toBe('Good evening, Sam! I am Clara.');
    const next = await client.agents.sendMessage(agentId, {
      conversation_id: first.conversation_id,
      text: 'Is the bar open?',
    });
    expect(next.first_message).toBeNull();
    const { messages } = await client.agents.listMessages(agentId, {
      conversation_id: first.conversation_id,
    });
    expect(messages.map((m) => m.text)).toEqual([
      'Good evening, Sam! I am Clara.',
      'Hi!',
      ANSWER,
      'Is the bar open?',
      ANSWER,
    ]);
  });

  it('answers a repeated message_id once, charging once', async () => {
    const messageId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    const before = await rig.balance();
    const first = await client.agents.sendMessage(agentId, { text: 'Once', message_id: messageId });
    const charged = before - (await rig.balance());
    const again = await client.agents.sendMessage(agentId, { text: 'Once', message_id: messageId });
    expect(again.message.id).toBe(first.message.id);
    expect(before - (await rig.balance())).toBe(charged);
    expect(charged).toBe(Math.round(first.usage.charge.credits * 1000));
  });

  it('streams the answer event by event', async () => {
    const events = await collect(client.agents.streamMessage(agentId, { text: 'Hello?' }));
    expect(events.map((e) => e.event)).toEqual([
      'conversation',
      'delta',
      'delta',
      'delta',
      'delta',
      'message',
      'usage',
      'done',
    ]);
    const deltas = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : []));
    expect(deltas.join('')).toBe(ANSWER);
    const message = events.find((e) => e.event === 'message');
    expect(message?.data).toMatchObject({ role: 'assistant', text: ANSWER });
  });

  it('throws a provider failure mid-answer as its typed error, after the first deltas', async () => {
    rig.openai.script({ failure: { kind: 'stall_after_deltas', deltas: 2 } });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of client.agents.streamMessage(agentId, { text: 'Stall' })) {
        seen.push(event.event);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['conversation', 'delta', 'delta']);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'provider_error', retryable: true });
  });

  it('retries a retryable refusal before the answer and throws a final one', async () => {
    const refusals = (status: number) =>
      rig.server
        .logs()
        .filter(
          (l) =>
            l.msg === 'request' && l.status === status && String(l.route).endsWith('/messages'),
        ).length;
    // The vendor's 429 becomes 503 provider_unavailable with Retry-After: the SDK waits,
    // sends the same message_id again, and the second attempt streams the answer.
    rig.openai.script({ failure: { kind: 'status', status: 429, retryAfterSeconds: 1 } });
    const events = await collect(client.agents.streamMessage(agentId, { text: 'Busy?' }));
    expect(events.find((e) => e.event === 'message')?.data).toMatchObject({ text: ANSWER });
    await waitFor(() => refusals(503) >= 1, { what: 'the 503 in the request log' });
    expect(refusals(503)).toBe(1);

    rig.openai.script({ failure: { kind: 'status', status: 401 } });
    const error = await collect(client.agents.streamMessage(agentId, { text: 'Refused' })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 502, retryable: false });
    await waitFor(() => refusals(502) >= 1, { what: 'the 502 in the request log' });
    expect(refusals(502)).toBe(1);
  });
});
