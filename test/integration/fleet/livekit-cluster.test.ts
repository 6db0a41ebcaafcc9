// Agent sessions on a two-node LiveKit cluster (one Redis): the api calls node 1 and
// gives browsers node 1's URL (the cluster's URL), the agent worker registers with node 2.
// Two sessions land one on each node; in each, the end user joins through the node that
// does not host the room, with the token the api minted, and hears and reads the Agent.
// The user types (no speech model is needed).

import { RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import {
  agentIdentity,
  sessionRoom,
  userIdentity,
} from '../../../src/agent-sessions/livekit-rooms.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { LivekitCluster, LivekitClusterNode } from '../../helpers/livekit-cluster.ts';
import { RoomClient } from '../../helpers/room-client.ts';

const GREETING = 'Hello Grace, I am Ada.';

type ChatBody = { messages: { role: string; content: string | null }[] };

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'postgres',
  agentName: 'awp-cluster-worker-test',
  stt: 'none',
  livekit: 'cluster',
});

describe('Agent sessions on a LiveKit cluster', () => {
  let rig: RealtimeRig;
  let cluster: LivekitCluster;
  let agentId: string;

  const startSession = async () => {
    const minted = await rig.api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const reply = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      { sessionContext: { userName: 'Grace' } },
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { session_id: string; livekit: { url: string; token: string } };
  };

  const participantsSeenBy = async (node: LivekitClusterNode, room: string) =>
    (
      await new RoomServiceClient(node.httpUrl, cluster.apiKey, cluster.apiSecret).listParticipants(
        room,
      )
    )
      .map((p) => p.identity)
      .sort();

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
    if (!rig.cluster) throw new Error('the rig started no cluster');
    cluster = rig.cluster;
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'cluster-ada',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'Ada',
          system_prompt: 'You are {{char}}.',
          first_mes: 'Hello {{user}}, I am {{char}}.',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it('runs sessions whose rooms land on either node, joined through the other node', async () => {
    const [one, two] = cluster.nodes as [LivekitClusterNode, LivekitClusterNode];
    const hosts: number[] = [];
    const clients: RoomClient[] = [];
    const sessions: { id: string; question: string; answer: string }[] = [];
    try {
      // The first session stays open while the second starts: LiveKit puts a new room on the
      // node with the fewest, so the second lands on the other node.
      for (const answer of ['Answered through one node.', 'Answered through the other.']) {
        const started = await startSession();
        // Browsers get the cluster's URL; the token is valid on every node.
        expect(started.livekit.url).toBe(one.url);
        const room = sessionRoom(started.session_id);
        const host = await cluster.nodeHostingRoom(room);
        if (!host) throw new Error(`no node hosts ${room}`);
        hosts.push(host.index);
        const through = host === one ? two : one;
        const client = await RoomClient.join(through.url, started.livekit.token);
        clients.push(client);

        // The greeting arrives as text and as audio through the node that does not host it.
        const greeting = await client.waitUntil(
          () => client.transcripts().find((t) => t.role === 'agent'),
          45_000,
          `the greeting of the room on node ${host.index}`,
        );
        expect(greeting).toMatchObject({ text: GREETING, final: true });
        await client.waitUntil(() => client.loudFramesSince(0) > 20, 20_000, 'greeting audio');

        // A typed question reaches the Agent's model and its spoken answer comes back.
        const question = `Which node is this, ${host.index}?`;
        sessions.push({ id: started.session_id, question, answer });
        rig.llm.script({ text: [answer] });
        const asked = performance.now();
        await client.sendText(question);
        const reply = await client.waitUntil(
          () => client.transcripts().find((t) => t.role === 'agent' && t.text === answer),
          30_000,
          'the answer',
        );
        expect(reply.final).toBe(true);
        const sent = rig.llm.requests.at(-1)?.body as ChatBody;
        expect(sent.messages.at(-1)).toMatchObject({ role: 'user' });
        expect(sent.messages.at(-1)?.content).toContain(question);
        await client.waitUntil(() => client.loudFramesSince(asked) > 20, 20_000, 'answer audio');

        // Both nodes see the same room: the end user and the Agent (joined through node 2).
        const expected = [agentIdentity(started.session_id), userIdentity(started.session_id)];
        expect(await participantsSeenBy(one, room)).toEqual(expected);
        expect(await participantsSeenBy(two, room)).toEqual(expected);
      }
      expect(hosts.sort()).toEqual([1, 2]);
    } finally {
      for (const client of clients) await client.leave();
    }

    // Each user left: each session ended with its transcript and usage.
    for (const session of sessions) {
      let body: Record<string, unknown> = {};
      for (let i = 0; i < 60; i++) {
        body = (await rig.api('GET', `/v1/agent-sessions/${session.id}`)).body;
        if (body.state !== 'active') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(body).toMatchObject({ state: 'ended', end_reason: 'user_left', transcript_count: 3 });
      const usage = body.usage as { charge: { credits: number }; llm_output_tokens: number };
      expect(usage.charge.credits).toBeGreaterThan(0);
      expect(usage.llm_output_tokens).toBeGreaterThan(0);
      const transcript = await rig.handle.db
        .selectFrom('agent_session_messages')
        .select(['role', 'text'])
        .where('session_id', '=', session.id)
        .orderBy('created_at')
        .execute();
      expect(transcript).toEqual([
        { role: 'agent', text: GREETING },
        { role: 'user', text: session.question },
        { role: 'agent', text: session.answer },
      ]);
    }
  }, 240_000);
});
