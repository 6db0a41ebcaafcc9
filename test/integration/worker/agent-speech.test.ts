// Agent speech is part of the Agents product: a real livekit-server, the api, the agent
// worker and the OpenAI chat fake. An end user hears the Agent of a workspace that has
// Agents without TTS, and the Agent of a workspace whose key allows one synthesis a minute
// speaks every sentence, leaving that key's own allowance untouched. The worker's speech
// credential dies with its session.

import { describe, expect } from 'vitest';
import { StreamTokens } from '../../../src/auth/stream-tokens.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import { openStream, streamUrl, type UpgradeRefusal } from '../../helpers/stream.ts';
import { waitFor } from '../../helpers/wait.ts';

const AGENT_NAME = 'awp-agent-speech-test';
const SIGNING_SECRET = `${AGENT_NAME}-signing-secret-0123456789abcdef`;
// Three sentences, each long enough for the framework's sentence splitter to keep apart:
// three streams, one per sentence.
const SENTENCES = [
  'Welcome to the reading room today.',
  'I can help you find a good book.',
  'Ask me about any author you like.',
];
const GREETING = SENTENCES.join(' ');
/** 100 frames of 10 ms with speech in them: a second of the Agent's voice. */
const HEARD_FRAMES = 100;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'sqlite',
  agentName: AGENT_NAME,
  stt: 'none',
  env: {
    // One synthesis a minute per key, one stream at a time per workspace: limits of
    // synthesis, which agent speech is not counted against.
    TTS_RATE_LIMIT_PER_MINUTE: '1',
    STREAM_MAX_CONCURRENT_PER_WORKSPACE: '1',
  },
});

describe('Agent speech in Agent sessions (worker)', () => {
  let rig: RealtimeRig;

  const publishedAgent = async (api: ApiClient, slug: string) => {
    const created = await api('POST', '/v1/agents', {
      slug,
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Libby', system_prompt: 'You are {{char}}.', first_mes: GREETING },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };

  const startSession = async (api: ApiClient, agentId: string) => {
    const minted = await api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const reply = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as { session_id: string; livekit: { url: string; token: string } };
  };

  /** Joins as the end user and waits until the whole greeting was heard and recorded. */
  const hearGreeting = async (session: {
    session_id: string;
    livekit: { url: string; token: string };
  }) => {
    const client = await RoomClient.join(session.livekit.url, session.livekit.token);
    try {
      await client.waitUntil(
        () => client.transcripts().find((t) => t.role === 'agent' && t.text === GREETING),
        60_000,
        'the greeting transcript',
      );
      await client.waitUntil(
        () => client.loudFramesSince(0) >= HEARD_FRAMES,
        30_000,
        "a second of the Agent's voice",
      );
      // Each sentence is one agent speech request in the ledger, charged to the session.
      return await waitFor(
        async () => {
          const rows = await rig.handle.db
            .selectFrom('synthesis_requests')
            .select(['status', 'chars_synthesized', 'api_key_id', 'workspace_id'])
            .where('partner_session_id', '=', `agent-session:${session.session_id}`)
            .execute();
          return (
            rows.length === SENTENCES.length &&
            rows.every((row) => row.status !== 'started') &&
            rows
          );
        },
        { what: 'the greeting’s speech requests to close' },
      );
    } finally {
      await client.leave();
    }
  };

  it.beforeAll(async ({ realtimeRig }) => {
    rig = realtimeRig;
  }, 180_000);

  it('lets an end user hear the Agent of a workspace with Agents and without TTS', async () => {
    const only = await seedWorkspace(rig.handle, { capabilities: ['agents'] });
    const api = apiClient(rig.server.url, only.productionKey);
    // The voices it may give its Agents; synthesis itself stays closed to it.
    const voices = await api('GET', '/v1/voices');
    expect(voices.status, JSON.stringify(voices.body)).toBe(200);
    expect(voices.body.voices.map((v: { id: string }) => v.id)).toContain(NATIVE_VOICE);
    const tts = await api('POST', '/v1/tts', {
      text: 'Hi.',
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
    });
    expect([tts.status, tts.body.code]).toEqual([403, 'capability_disabled']);

    const session = await startSession(api, await publishedAgent(api, 'agents-only'));
    const rows = await hearGreeting(session);
    expect(rows.map((row) => [row.status, row.api_key_id, row.workspace_id])).toEqual(
      SENTENCES.map(() => ['succeeded', only.productionKeyId, only.workspaceId]),
    );
    expect(rows.map((row) => Number(row.chars_synthesized)).sort((a, b) => a - b)).toEqual(
      SENTENCES.map((s) => s.length).sort((a, b) => a - b),
    );
    const report = await waitFor(
      async () => {
        const read = await api('GET', `/v1/agent-sessions/${session.session_id}`);
        return read.body.state === 'ended' && read.body;
      },
      { what: 'the session to end' },
    );
    expect(report.usage.tts_characters).toBe(GREETING.length - (SENTENCES.length - 1));
    expect(report.usage.charge.credits).toBeGreaterThan(0);

    // The worker's credential for that session opens no stream once the session is over.
    const { token } = await new StreamTokens(SIGNING_SECRET).mint(
      {
        keyId: only.productionKeyId,
        workspaceId: only.workspaceId,
        environment: 'production',
        agentSessionId: session.session_id,
      },
      Date.now(),
      'agent_speech',
    );
    const refusal = (await openStream(streamUrl(rig.server.url, token)).then(
      () => undefined,
      (error: UpgradeRefusal) => error,
    )) as UpgradeRefusal | undefined;
    expect([refusal?.status, refusal?.body.code]).toEqual([401, 'unauthorized']);
  }, 180_000);

  it("speaks every sentence outside the key's synthesis limits, which still hold for the key", async () => {
    const session = await startSession(rig.api, await publishedAgent(rig.api, 'limited-key'));
    const rows = await hearGreeting(session);
    expect(rows.map((row) => [row.status, row.api_key_id])).toEqual(
      SENTENCES.map(() => ['succeeded', rig.ws.productionKeyId]),
    );
    // The key's one synthesis a minute is still there, and still one.
    const body = { text: 'Hi.', voice_id: NATIVE_VOICE, output_format: 'pcm_24000' };
    const first = await rig.api('POST', '/v1/tts', body);
    expect(first.status, first.bytes.toString()).toBe(200);
    const second = await rig.api('POST', '/v1/tts', body);
    expect([second.status, second.body.code]).toEqual([429, 'rate_limited']);
  }, 180_000);
});
