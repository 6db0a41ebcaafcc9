// The server SDK's Agent memories and tool events against the real api: seed, read and
// erase what an Agent remembers, and see the model's tool calls in a streamed answer.

import { AwpClient, NotFoundError } from '../../../backend-sdk/src/index.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('server SDK: Agent memories', () => {
  dialectSuite('sqlite');
  let rig: ConversationRig;
  let client: AwpClient;
  let agentId: string;

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get('sqlite'), apis);
    client = new AwpClient({ apiKey: rig.ws.productionKey, baseUrl: rig.server.url });
    agentId = await rig.publishedAgent({ memory_enabled: true });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('creates, lists and deletes memories', async () => {
    const jazz = await client.agents.memories.create(agentId, {
      end_user_id: END_USER,
      text: 'Loves jazz.',
    });
    expect(jazz).toMatchObject({ agent_id: agentId, end_user_id: END_USER, source: 'api' });
    await client.agents.memories.create(agentId, { end_user_id: END_USER, text: 'Has a cat.' });
    const listed = await client.agents.memories.list(agentId, END_USER);
    expect(listed.memories.map((m) => m.text)).toEqual(['Loves jazz.', 'Has a cat.']);
    await client.agents.memories.delete(agentId, jazz.id);
    expect((await client.agents.memories.list(agentId, END_USER)).memories).toHaveLength(1);
    await client.agents.memories.deleteAll(agentId, END_USER);
    expect((await client.agents.memories.list(agentId, END_USER)).memories).toEqual([]);
    await expect(client.agents.memories.delete(agentId, jazz.id)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('streams the tool events of an answer', async () => {
    rig.openai
      .script({
        text: [],
        toolCalls: [{ id: 'call_k', name: 'remember', arguments: '{"fact":"Is vegetarian."}' }],
      })
      .script({ text: ['Noted.'] });
    const events: string[] = [];
    for await (const { event, data } of client.agents.streamMessage(agentId, {
      text: 'I am vegetarian.',
      end_user_id: END_USER,
    })) {
      events.push(event === 'tool_result' ? `${event}:${data.name}:${data.ok}` : event);
    }
    expect(events).toEqual([
      'conversation',
      'tool_call',
      'tool_result:remember:true',
      'delta',
      'message',
      'usage',
      'done',
    ]);
    expect(
      (await client.agents.memories.list(agentId, END_USER)).memories.map((m) => m.text),
    ).toEqual(['Is vegetarian.']);
  });
});
