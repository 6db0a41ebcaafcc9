// The api side of Agent sessions against a real livekit-server: session starts with
// Agent session tokens (reuse, another Agent, expired), the room, the worker's dispatch and
// the end user's LiveKit grants, overrides, CORS, and a session no worker ever takes.
// No agent worker runs here (test/integration/worker/ covers it).

import {
  LocalVideoTrack,
  Room,
  TrackPublishOptions,
  TrackSource,
  VideoSource,
} from '@livekit/rtc-node';
import { SignJWT } from 'jose';
import { AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  beforeAll,
  describe,
  describeEachDialect,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

const ORIGIN = 'https://app.example.com';

describeEachDialect('Live Agent session starts on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let livekit: LivekitServer;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let counter = 0;

  const publishedAgent = async (fields: Record<string, unknown> = {}) => {
    const created = await api('POST', '/v1/agents', {
      slug: `live-${++counter}`,
      voice_id: NATIVE_VOICE,
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Ada', description: 'A patient tutor.', system_prompt: 'Be brief.' },
      },
      ...fields,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };
  const mint = async (agentId: string) => {
    const reply = await api('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.token as string;
  };
  const start = (agentId: string, token: string, body?: unknown, headers = {}) =>
    apiClient(server.url, token)('POST', `/v1/agents/${agentId}/sessions`, body, headers);

  beforeAll(async ({ databases, apis, livekit: started }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    livekit = started;
    server = await apis.start(database, {
      env: {
        ...LLM_ENV,
        LIVEKIT_URL: livekit.url,
        LIVEKIT_API_KEY: livekit.apiKey,
        LIVEKIT_API_SECRET: livekit.apiSecret,
        AGENT_NAME: 'awp-agent-test',
        STREAM_ALLOWED_ORIGINS: ORIGIN,
        // Short, so a session no worker takes is reported failed within the test.
        AGENT_SESSION_HEARTBEAT_TIMEOUT_MS: '1000',
      },
    });
    api = apiClient(server.url, ws.productionKey);
  }, 60_000);

  it('starts a session: room, explicit dispatch, avatar, and a microphone-only user token', async () => {
    const agentId = await publishedAgent({ avatar_id: 'avatar_ada' });
    const reply = await start(agentId, await mint(agentId), {
      sessionContext: { userName: 'Grace', timeZone: 'Europe/Paris' },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const sessionId = reply.body.session_id as string;
    expect(reply.body).toEqual({
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      agent_id: agentId,
      room: `awp-${sessionId}`,
      livekit: { url: livekit.url, token: expect.any(String) },
      avatar: {
        id: 'avatar_ada',
        name: 'Ada',
        image_url: `${server.url}/v1/avatars/avatar_ada/preview`,
      },
      expires_at: expect.any(String),
    });

    const rooms = new RoomServiceClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
    expect((await rooms.listRooms([`awp-${sessionId}`])).map((r) => r.name)).toEqual([
      `awp-${sessionId}`,
    ]);
    const dispatches = await new AgentDispatchClient(
      livekit.httpUrl,
      livekit.apiKey,
      livekit.apiSecret,
    ).listDispatch(`awp-${sessionId}`);
    // LiveKit also lists its default dispatch (agent name ''), which only workers
    // registered without a name take; ours registers with AGENT_NAME.
    const ours = dispatches.filter((d) => d.agentName === 'awp-agent-test');
    expect(ours).toHaveLength(1);
    expect(JSON.parse(ours[0]?.metadata ?? '{}').session_id).toBe(sessionId);

    // The browser's token: joins as user-<id> with the given name; a camera or a screen
    // share is refused, the microphone is not.
    const room = new Room();
    await room.connect(livekit.url, reply.body.livekit.token, {
      autoSubscribe: false,
      dynacast: false,
    });
    try {
      expect(room.localParticipant?.identity).toBe(`user-${sessionId}`);
      expect(room.localParticipant?.name).toBe('Grace');
      const source = new VideoSource(64, 64);
      for (const kind of [TrackSource.SOURCE_CAMERA, TrackSource.SOURCE_SCREENSHARE]) {
        const track = LocalVideoTrack.createVideoTrack(`v-${kind}`, source);
        const options = new TrackPublishOptions();
        options.source = kind;
        await expect(room.localParticipant?.publishTrack(track, options)).rejects.toThrow();
      }
    } finally {
      await room.disconnect();
    }
    // Each refusal is LiveKit's publish timeout (about 10 s).
  }, 60_000);

  it('refuses a token used twice (401), of another Agent (403) and expired (401)', async () => {
    const agentId = await publishedAgent();
    const other = await publishedAgent();
    const token = await mint(agentId);
    expect((await start(agentId, token)).status).toBe(201);
    const again = await start(agentId, token);
    expect([again.status, again.body.code]).toEqual([401, 'unauthorized']);

    const foreign = await start(other, await mint(agentId));
    expect([foreign.status, foreign.body.code]).toEqual([403, 'session_token_agent_mismatch']);

    // Signed with the deployment's secret like a real one, but its 15 minutes are over.
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ agt: agentId, org: ws.workspaceId, env: 'production' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(ws.productionKeyId)
      .setIssuer('awp')
      .setAudience('awp:agent-session')
      .setIssuedAt(now - 1000)
      .setExpirationTime(now - 100)
      .setJti(`expired-${counter}`)
      .sign(new TextEncoder().encode(LLM_ENV.TOKEN_SIGNING_SECRET));
    const late = await start(agentId, expired);
    expect([late.status, late.body.code]).toEqual([401, 'unauthorized']);
    const none = await apiClient(server.url, undefined)('POST', `/v1/agents/${agentId}/sessions`);
    expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
  }, 30_000);

  it('refuses a development token at the production base URL (401) and leaves it unused', async () => {
    const devApi = apiClient(server.devUrl, ws.developmentKey);
    const created = await devApi('POST', '/v1/agents', {
      slug: 'dev-only',
      voice_id: NATIVE_VOICE,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const agentId = created.body.id as string;
    expect((await devApi('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
    const minted = await devApi('POST', `/v1/agents/${agentId}/session-tokens`, {});
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const token = minted.body.token as string;

    const atProduction = await apiClient(server.url, token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
    );
    expect([atProduction.status, atProduction.body.code]).toEqual([401, 'unauthorized']);
    expect(atProduction.body.detail).toBe(
      'This session token belongs to the development environment; use its base URL.',
    );
    // Refused before it was used: its own base URL still starts the session.
    const atDevelopment = await apiClient(server.devUrl, token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
    );
    expect(atDevelopment.status, JSON.stringify(atDevelopment.body)).toBe(201);
  }, 30_000);

  it('applies session overrides to the session only; never both kinds', async () => {
    const agentId = await publishedAgent();
    const legacy = await start(agentId, await mint(agentId), {
      overrides: { persona: 'A pirate.' },
    });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(201);
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select(['snapshot', 'overrides'])
      .where('id', '=', legacy.body.session_id)
      .executeTakeFirstOrThrow();
    const card = JSON.parse(row.snapshot).characterCard.data;
    expect([card.description, card.system_prompt]).toEqual(['A pirate.', 'Be brief.']);
    expect(JSON.parse(row.overrides ?? 'null')).toEqual({ persona: 'A pirate.' });
    // The Agent itself is unchanged.
    const agent = await api('GET', `/v1/agents/${agentId}`);
    expect(agent.body.character_card.data.description).toBe('A patient tutor.');

    const token = await mint(agentId);
    const mixed = await start(agentId, token, {
      overrides: {
        systemPrompt: 'x',
        characterCard: { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'B' } },
      },
    });
    expect([mixed.status, mixed.body.code]).toEqual([400, 'invalid_request']);
    // A refused body does not use up the token.
    expect(
      (await start(agentId, token, { sessionContext: { timeZone: 'Mars/Base' } })).status,
    ).toBe(400);
    expect((await start(agentId, token)).status).toBe(201);
  }, 30_000);

  it('takes the bearer scheme in any case and a userName as given, up to 4096 bytes', async () => {
    const agentId = await publishedAgent();
    // 1,599 characters, 1,999 bytes of UTF-8: far over the 100 characters once refused.
    const userName = 'Zoë '.repeat(400).trim();
    const reply = await apiClient(server.url, undefined)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      { sessionContext: { userName } },
      { authorization: `bearer ${await mint(agentId)}` },
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const row = await handle.db
      .selectFrom('agent_sessions')
      .select('session_context')
      .where('id', '=', reply.body.session_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.session_context ?? 'null')).toEqual({ userName });
    const room = new Room();
    await room.connect(livekit.url, reply.body.livekit.token, {
      autoSubscribe: false,
      dynacast: false,
    });
    try {
      expect(room.localParticipant?.name).toBe(userName);
    } finally {
      await room.disconnect();
    }
    const upper = await apiClient(server.url, undefined)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
      { authorization: `BEARER ${await mint(agentId)}` },
    );
    expect(upper.status, JSON.stringify(upper.body)).toBe(201);
    const tooLong = await start(agentId, await mint(agentId), {
      sessionContext: { userName: 'é'.repeat(2049) },
    });
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'invalid_request']);
  }, 30_000);

  it('leaves the token unused when the start is refused for the Agent (409)', async () => {
    const agentId = await publishedAgent();
    const token = await mint(agentId);
    const agentRow = await handle.db
      .selectFrom('agents')
      .select('active_publication_id')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    // The publication is withdrawn between minting and the start.
    await handle.db
      .updateTable('agents')
      .set({ active_publication_id: null })
      .where('id', '=', agentId)
      .execute();
    const refused = await start(agentId, token);
    expect([refused.status, refused.body.code]).toEqual([409, 'agent_not_published']);
    const uses = await handle.db
      .selectFrom('agent_session_token_uses')
      .select('jti')
      .where('agent_id', '=', agentId)
      .execute();
    expect(uses).toEqual([]);
    await handle.db
      .updateTable('agents')
      .set({ active_publication_id: agentRow.active_publication_id })
      .where('id', '=', agentId)
      .execute();
    const started = await start(agentId, token);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const again = await start(agentId, token);
    expect([again.status, again.body.code]).toEqual([401, 'unauthorized']);
  }, 30_000);

  it('reports a session no worker takes as failed (worker_lost) with zero usage', async () => {
    const agentId = await publishedAgent();
    const started = await start(agentId, await mint(agentId));
    const sessionId = started.body.session_id as string;
    const first = await api('GET', `/v1/agent-sessions/${sessionId}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      session_id: sessionId,
      agent_id: agentId,
      state: 'connecting',
      started_at: null,
      transcript_count: 0,
      latency: null,
    });
    // What the worker records of its spoken turns is reported as it stands.
    await new AgentSessions(handle.db, { heartbeatTimeoutMs: 1000 }).recordLatency(sessionId, {
      turns: 3,
      endOfSpeechToFirstAudioMs: { p50: 702, p95: 815, max: 815 },
      transcriptionDelayMs: { p50: 551, p95: 600, max: 600 },
      llmFirstTokenMs: null,
      ttsFirstAudioMs: { p50: 11, p95: 19, max: 19 },
    });
    expect((await api('GET', `/v1/agent-sessions/${sessionId}`)).body.latency).toEqual({
      turns: 3,
      end_of_speech_to_first_audio_ms: { p50: 702, p95: 815, max: 815 },
      transcription_delay_ms: { p50: 551, p95: 600, max: 600 },
      llm_first_token_ms: null,
      tts_first_audio_ms: { p50: 11, p95: 19, max: 19 },
    });
    // Two heartbeat timeouts (2 s) without a worker taking the job.
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    const later = await api('GET', `/v1/agent-sessions/${sessionId}`);
    expect(later.body).toMatchObject({ state: 'failed', end_reason: 'worker_lost' });
    expect(later.body.usage).toEqual({
      charge: { credits: 0, amount: 0, currency: 'USD' },
      session_seconds: 0,
      llm_input_tokens: 0,
      llm_output_tokens: 0,
      tts_characters: 0,
      stt_seconds: 0,
      web_searches: 0,
    });
    // Another workspace cannot see it.
    const stranger = await seedWorkspace(handle);
    const hidden = await apiClient(server.url, stranger.productionKey)(
      'GET',
      `/v1/agent-sessions/${sessionId}`,
    );
    expect([hidden.status, hidden.body.code]).toEqual([404, 'not_found']);
  }, 30_000);

  it('answers CORS preflight for allowed origins only, and adds the headers to answers', async () => {
    const agentId = await publishedAgent();
    const path = `/v1/agents/${agentId}/sessions`;
    const preflight = await fetch(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const refused = await fetch(`${server.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.net', 'access-control-request-method': 'POST' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const reply = await start(agentId, await mint(agentId), undefined, { origin: ORIGIN });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const failed = await start(agentId, 'not-a-token', undefined, { origin: ORIGIN });
    expect(failed.status).toBe(401);
    expect(failed.headers.get('access-control-allow-origin')).toBe(ORIGIN);

    // Routes without CORS still answer OPTIONS with 405.
    const plain = await fetch(`${server.url}/v1/agents`, { method: 'OPTIONS' });
    expect(plain.status).toBe(405);
    const preview = await fetch(`${server.url}/v1/avatars/avatar_ada/preview`, {
      headers: { origin: 'https://anywhere.example.org' },
    });
    expect(preview.headers.get('access-control-allow-origin')).toBe('*');
  }, 30_000);
});

describeEachDialect('Concurrent live sessions per workspace on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let livekit: LivekitServer;
  let server: RunningServer;
  let counter = 0;

  /** A workspace with a published Agent; `start` mints a token unless given one. */
  const workspaceWithAgent = async () => {
    const ws = await seedWorkspace(handle);
    const api = apiClient(server.url, ws.productionKey);
    const created = await api('POST', '/v1/agents', {
      slug: `limited-${++counter}`,
      voice_id: NATIVE_VOICE,
    });
    expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    const agentId = created.body.id as string;
    const mint = async () =>
      (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body.token as string;
    const start = async (token?: string) =>
      apiClient(server.url, token ?? (await mint()))('POST', `/v1/agents/${agentId}/sessions`, {});
    const startApplication = (requestId: string) =>
      api('POST', `/v1/agents/${agentId}/application-sessions`, {
        agentId,
        chatSessionId: '6f1b1d4e-2c1a-4c55-9d6a-0b1f4a3c2d10',
        requestId,
        application: { instructions: 'You are the booking desk.' },
      });
    return { mint, start, startApplication };
  };

  beforeAll(async ({ databases, apis, livekit: started }) => {
    ({ database, handle } = await databases.get(dialect));
    livekit = started;
    server = await apis.start(database, {
      env: {
        ...LLM_ENV,
        LIVEKIT_URL: livekit.url,
        LIVEKIT_API_KEY: livekit.apiKey,
        LIVEKIT_API_SECRET: livekit.apiSecret,
        AGENT_NAME: 'awp-agent-test',
        AGENT_SESSIONS_MAX_CONCURRENT_PER_WORKSPACE: '2',
      },
    });
  }, 60_000);

  it('refuses a start beyond the limit with 429 rate_limited, leaving the token unused', async () => {
    const own = await workspaceWithAgent();
    const first = await own.start();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const application = await own.startApplication('0c7e6a52-58a3-4c8e-a1d5-7d2c9f0e8b41');
    expect(application.status, JSON.stringify(application.body)).toBe(201);

    const token = await own.mint();
    const refused = await own.start(token);
    expect([refused.status, refused.body.code, refused.body.retryable]).toEqual([
      429,
      'rate_limited',
      true,
    ]);
    expect(refused.headers.get('retry-after')).toBe('5');
    const refusedApplication = await own.startApplication('9b3c1e7a-1f2d-4b6e-8a9c-3d5e7f9a1b2c');
    expect([refusedApplication.status, refusedApplication.body.code]).toEqual([
      429,
      'rate_limited',
    ]);
    // The limit is per workspace.
    expect((await (await workspaceWithAgent()).start()).status).toBe(201);

    // Once a session ends, the refused token starts one.
    await new AgentSessions(handle.db, { heartbeatTimeoutMs: 15_000 }).end(
      first.body.session_id,
      'ended',
      'user_left',
    );
    const later = await own.start(token);
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    expect((await own.start()).status).toBe(429);
  }, 60_000);
});

describe('Agent session starts without LiveKit', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get('sqlite'));
    server = await apis.start(database, { env: LLM_ENV });
  }, 60_000);

  it('answers 503 service_unavailable and leaves the token unused', async () => {
    const ws = await seedWorkspace(handle);
    const api = apiClient(server.url, ws.productionKey);
    const created = await api('POST', '/v1/agents', { slug: 'nolk', voice_id: NATIVE_VOICE });
    await api('POST', `/v1/agents/${created.body.id}/publish`);
    const token = (await api('POST', `/v1/agents/${created.body.id}/session-tokens`, {})).body
      .token as string;
    const reply = await apiClient(server.url, token)(
      'POST',
      `/v1/agents/${created.body.id}/sessions`,
    );
    expect([reply.status, reply.body.code, reply.body.retryable]).toEqual([
      503,
      'service_unavailable',
      true,
    ]);
    expect(reply.body.detail).toMatch(/LIVEKIT_URL/);
    const uses = await handle.db.selectFrom('agent_session_token_uses').selectAll().execute();
    expect(uses).toEqual([]);

    // The credential is checked before the body: a refused token is 401 whatever the body;
    // a good one with a body over 256 KiB is the spec's invalid_request, HTTP 413.
    const huge = { sessionContext: { userName: 'x'.repeat(300 * 1024) } };
    const forged = await apiClient(server.url, 'not-a-token')(
      'POST',
      `/v1/agents/${created.body.id}/sessions`,
      huge,
    );
    expect([forged.status, forged.body.code]).toEqual([401, 'unauthorized']);
    const big = await apiClient(server.url, token)(
      'POST',
      `/v1/agents/${created.body.id}/sessions`,
      huge,
    );
    expect([big.status, big.body.code]).toEqual([413, 'invalid_request']);
  }, 30_000);
});
