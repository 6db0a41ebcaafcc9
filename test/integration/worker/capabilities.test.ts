// A managed Agent's capabilities in an Agent session: a real livekit-server, the api, the
// agent worker and the OpenAI chat fake. The user types (no speech model is needed); the
// model calls the memory tool, the worker runs it, sends the result back and speaks the
// answer; the next session of the same end user begins with the memory in its prompt.

import { describe, expect } from 'vitest';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { RoomClient } from '../../helpers/room-client.ts';

const END_USER = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'sqlite',
  agentName: 'awp-capabilities-worker-test',
  stt: 'none',
});

type ChatBody = {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
};

describe('Agent capabilities in Agent sessions (worker)', () => {
  let rig: RealtimeRig;
  let agentId: string;

  const startSession = async () => {
    const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {
      end_user_id: END_USER,
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const reply = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { session_id: string; livekit: { url: string; token: string } };
  };
  const bodies = () => rig.llm.requests.map((r) => r.body as ChatBody);

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'memo',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      memory_enabled: true,
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Memo', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 120_000);

  it('runs the memory tool the model calls and remembers across sessions', async () => {
    const first = await startSession();
    const client = await RoomClient.join(first.livekit.url, first.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
        45_000,
        'the greeting',
      );
      rig.llm
        .script({
          text: [],
          toolCalls: [{ id: 'call_m', name: 'remember', arguments: '{"fact":"Likes tea."}' }],
        })
        .script({ text: ['I will remember that.'] });
      const sent = rig.llm.requests.length;
      await client.sendText('I like tea.');
      await client.waitUntil(
        () => client.transcripts().find((t) => t.text === 'I will remember that.'),
        30_000,
        'the answer after the tool call',
      );
      const [asked, answered] = bodies().slice(sent);
      expect(asked?.tools?.map((t) => t.function.name)).toEqual([
        'remember',
        'forget',
        'stay_quiet',
      ]);
      expect(asked?.messages[0]?.content).toContain('You remember nothing about this user yet.');
      const stored = await rig.api('GET', `/v1/agents/${agentId}/memories?end_user_id=${END_USER}`);
      expect(
        stored.body.memories.map((m: { text: string; source: string }) => [m.text, m.source]),
      ).toEqual([['Likes tea.', 'agent']]);
      const toolMessage = answered?.messages.find((m) => m.role === 'tool');
      expect(toolMessage).toEqual({
        role: 'tool',
        tool_call_id: 'call_m',
        content: JSON.stringify({ saved: { id: stored.body.memories[0].id, fact: 'Likes tea.' } }),
      });
    } finally {
      await client.leave();
    }

    // A new session of the same end user begins with what the Agent remembers.
    const second = await startSession();
    const again = await RoomClient.join(second.livekit.url, second.livekit.token);
    try {
      await again.waitUntil(
        () => again.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
        45_000,
        'the second greeting',
      );
      rig.llm.script({ text: ['Tea, as always?'] });
      const sent = rig.llm.requests.length;
      await again.sendText('Hello again.');
      await again.waitUntil(
        () => again.transcripts().find((t) => t.text === 'Tea, as always?'),
        30_000,
        'the answer of the second session',
      );
      expect(bodies()[sent]?.messages[0]?.content).toContain('- Likes tea. (id ');
    } finally {
      await again.leave();
    }
  });
});
