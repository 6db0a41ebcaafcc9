// The operator API behind the Transcription and Streaming sessions pages: realtime
// transcription sessions (rows written through the domain's session store, as a session
// over the WebSocket writes them) and streaming sessions (opened, spoken and reported
// through /v1), answered exactly as /v1 answers them, for Owner, Admin and Builder only,
// scoped to the member's workspace and the listener's environment, bad input refused.

import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { TranscriptionSessionStore } from '../../../src/transcription/session-store.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient, type OperatorResponse } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

function body<T>(response: OperatorResponse, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body as T;
}

interface Page {
  sessions: { session_id?: string; id?: string }[];
  next_cursor: string | null;
}

describeEachDialect('operator API: transcription and streaming sessions on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let owner: OperatorClient;
  let builder: OperatorClient;
  let member: OperatorClient;
  let stranger: OperatorClient;
  let ownerOnDevelopment: OperatorClient;
  let v1: ApiClient;

  /** A finished transcription session, as the WebSocket's session writes one. */
  const transcribed = async (
    workspace: SeededWorkspace,
    environment: 'production' | 'development',
    options: { id: string; segments: string[]; failed?: boolean; partner?: string },
  ) => {
    const store = new TranscriptionSessionStore(handle.db, 'operator-test');
    await store.open({
      id: options.id,
      auditId: `aud_${options.id}`,
      workspaceId: workspace.workspaceId,
      environment,
      apiKeyId:
        environment === 'production' ? workspace.productionKeyId : workspace.developmentKeyId,
      engine: 'openai',
      audioFormat: 'pcm_16000',
      language: 'en-US',
      partnerSessionId: options.partner,
      priceMillicreditsPerMinute: 6000,
      reserveMillicredits: 6000,
    });
    for (const [index, text] of options.segments.entries()) {
      await store.addSegment(options.id, {
        segmentId: index + 1,
        text,
        startMs: index * 2000,
        endMs: index * 2000 + 1500,
        language: 'en',
      });
    }
    await store.close(options.id, {
      status: options.failed ? 'failed' : 'ended',
      ...(options.failed ? { errorCode: 'provider_error' as const } : {}),
      audioMs: 5400,
      charge: !options.failed,
    });
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      const capabilities = ['tts', 'agents', 'transcription'] as const;
      ws = await seedWorkspace(handle, { capabilities: [...capabilities] });
      other = await seedWorkspace(handle, { capabilities: [...capabilities] });
      await addOperator(handle.db, ws);
      await addOperator(handle.db, ws, { role: 'builder' });
      await addOperator(handle.db, ws, { role: 'member' });
      await addOperator(handle.db, other, { email: 'stranger@example.com' });
      server = await apis.start(database, { env: { AUDIO_PERSISTENCE: 'false' } });
      owner = await signInAs(server.url, 'owner@example.com');
      builder = await signInAs(server.url, 'builder@example.com');
      member = await signInAs(server.url, 'member@example.com');
      stranger = await signInAs(server.url, 'stranger@example.com');
      ownerOnDevelopment = await signInAs(server.devUrl, 'owner@example.com');
      v1 = apiClient(server.url, ws.productionKey);
    },
    budget({ servers: 1 }),
  );

  it('lists transcription sessions newest first and reads one as /v1 does', async () => {
    const ids = [
      '0190a0b0-0000-7000-8000-000000000001',
      '0190a0b0-0000-7000-8000-000000000002',
      '0190a0b0-0000-7000-8000-000000000003',
    ];
    await transcribed(ws, 'production', {
      id: ids[0] as string,
      segments: ['What is the weather like today in Paris?', 'Turn off the lights.'],
      partner: 'call-42',
    });
    await transcribed(ws, 'production', { id: ids[1] as string, segments: [], failed: true });
    await transcribed(ws, 'development', { id: ids[2] as string, segments: ['Development.'] });
    await transcribed(other, 'production', {
      id: '0190a0b0-0000-7000-8000-000000000009',
      segments: ['Another workspace.'],
    });

    const v1List = await v1('GET', '/v1/realtime-transcription-sessions');
    expect(v1List.status).toBe(200);
    for (const client of [owner, builder]) {
      const page = body<Page>(await client.request('GET', '/transcription-sessions'), 200);
      expect(page).toEqual(v1List.body);
      expect(page.sessions.map((s) => s.session_id)).toEqual([ids[1], ids[0]]);
    }
    const first = body<Page>(await owner.request('GET', '/transcription-sessions?limit=1'), 200);
    expect([first.sessions.map((s) => s.session_id), first.next_cursor]).toEqual([
      [ids[1]],
      expect.stringMatching(new RegExp(`~${ids[1]}$`)),
    ]);
    const second = body<Page>(
      await owner.request('GET', `/transcription-sessions?limit=1&cursor=${first.next_cursor}`),
      200,
    );
    expect(second.sessions.map((s) => s.session_id)).toEqual([ids[0]]);

    const detail = body<{ session: Record<string, unknown> }>(
      await builder.request('GET', `/transcription-sessions/${ids[0]}`),
      200,
    );
    expect(detail.session).toEqual(
      (await v1('GET', `/v1/realtime-transcription-sessions/${ids[0]}`)).body,
    );
    expect(detail.session).toMatchObject({
      status: 'ended',
      language: 'en-US',
      partner_session_id: 'call-42',
      audio_ms: 5400,
      cost: { credits: 0.54, currency: 'USD' },
      transcript: 'What is the weather like today in Paris? Turn off the lights.',
      segments: [
        { segment_id: 1, start_ms: 0, end_ms: 1500, language: 'en' },
        { segment_id: 2, start_ms: 2000, end_ms: 3500, language: 'en' },
      ],
    });

    // The development listener shows the development session only; another workspace none.
    const dev = body<Page>(await ownerOnDevelopment.request('GET', '/transcription-sessions'), 200);
    expect(dev.sessions.map((s) => s.session_id)).toEqual([ids[2]]);
    const strange = body<Page>(await stranger.request('GET', '/transcription-sessions'), 200);
    expect(strange.sessions.map((s) => s.session_id)).toEqual([
      '0190a0b0-0000-7000-8000-000000000009',
    ]);
    for (const [client, id] of [
      [ownerOnDevelopment, ids[0]],
      [stranger, ids[0]],
      [owner, ids[2]],
      [owner, 'no-such-session'],
    ] as const) {
      const response = await client.request('GET', `/transcription-sessions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'not_found' });
    }

    // A Member is refused (transcripts are end users' words), as is anyone signed out.
    for (const path of ['/transcription-sessions', `/transcription-sessions/${ids[0]}`]) {
      const refused = await member.request('GET', path);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
      expect((await new OperatorClient(server.url).request('GET', path)).status).toBe(401);
    }
    for (const query of ['limit=0', 'limit=101', 'cursor=not-here', `cursor=${ids[2]}`, 'x=1']) {
      const response = await owner.request('GET', `/transcription-sessions?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('lists streaming sessions with their usage and reads their events as /v1 does', async () => {
    const opened = await v1('POST', '/v1/streaming-sessions', {
      partner_session_id: 'checkout-42',
      metadata: { app: 'ios' },
    });
    expect(opened.status).toBe(201);
    const spoken = await v1('POST', '/v1/tts', {
      voice_id: NATIVE_VOICE,
      output_format: 'pcm_24000',
      text: 'Your order is ready.',
      partner_session_id: 'checkout-42',
    });
    expect(spoken.status).toBe(200);
    const reported = await v1('POST', `/v1/streaming-sessions/${opened.body.id}/events`, {
      events: [
        { type: 'playback_started' },
        { type: 'first_audio_played', data: { latency_ms: 180 } },
        { type: 'underrun', data: { duration_ms: 40 } },
        { type: 'playback_finished' },
      ],
    });
    expect(reported.status).toBe(201);
    const quiet = await v1('POST', '/v1/streaming-sessions', {});
    expect(quiet.status).toBe(201);
    const devSession = await apiClient(server.devUrl, ws.developmentKey)(
      'POST',
      '/v1/streaming-sessions',
    );
    expect(devSession.status).toBe(201);

    const v1List = (await v1('GET', '/v1/streaming-sessions')).body;
    for (const client of [owner, builder]) {
      const page = body<Page>(await client.request('GET', '/streaming-sessions'), 200);
      expect(page).toEqual(v1List);
      expect(page.sessions.map((s) => s.id)).toEqual([quiet.body.id, opened.body.id]);
    }
    const ended = body<Page>(await owner.request('GET', '/streaming-sessions?status=ended'), 200);
    expect(ended.sessions).toEqual([]);
    const session = body<{ session: Record<string, unknown> }>(
      await owner.request('GET', `/streaming-sessions/${opened.body.id}`),
      200,
    ).session;
    expect(session).toEqual((await v1('GET', `/v1/streaming-sessions/${opened.body.id}`)).body);
    expect(session).toMatchObject({
      partner_session_id: 'checkout-42',
      usage: { requests: 1, succeeded: 1, chars: 20 },
      events: {
        count: 4,
        by_type: { first_audio_played: 1, playback_finished: 1, playback_started: 1, underrun: 1 },
      },
    });

    const events = `/streaming-sessions/${opened.body.id}/events`;
    expect(body(await builder.request('GET', events), 200)).toEqual(
      (await v1('GET', `/v1${events}`)).body,
    );
    const firstTwo = body<{ events: { seq: number; type: string }[]; next_cursor: string }>(
      await owner.request('GET', `${events}?limit=2`),
      200,
    );
    expect(firstTwo.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'playback_started'],
      [2, 'first_audio_played'],
    ]);
    const rest = body<{ events: { seq: number }[]; next_cursor: string | null }>(
      await owner.request('GET', `${events}?limit=2&cursor=${firstTwo.next_cursor}`),
      200,
    );
    expect([rest.events.map((e) => e.seq), rest.next_cursor]).toEqual([[3, 4], null]);

    // Scope, roles and bad input.
    const dev = body<Page>(await ownerOnDevelopment.request('GET', '/streaming-sessions'), 200);
    expect(dev.sessions.map((s) => s.id)).toEqual([devSession.body.id]);
    expect(body<Page>(await stranger.request('GET', '/streaming-sessions'), 200).sessions).toEqual(
      [],
    );
    for (const [client, path] of [
      [stranger, `/streaming-sessions/${opened.body.id}`],
      [stranger, events],
      [ownerOnDevelopment, `/streaming-sessions/${opened.body.id}`],
      [owner, `/streaming-sessions/${devSession.body.id}`],
      [owner, '/streaming-sessions/not-a-session/events'],
    ] as const) {
      const response = await client.request('GET', path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).toMatchObject({ code: 'not_found' });
    }
    for (const path of ['/streaming-sessions', `/streaming-sessions/${opened.body.id}`, events]) {
      const refused = await member.request('GET', path);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    for (const path of [
      '/streaming-sessions?status=paused',
      '/streaming-sessions?limit=0',
      '/streaming-sessions?cursor=abc',
      `${events}?limit=501`,
      `${events}?cursor=abc`,
      `${events}?since=1`,
    ]) {
      const response = await owner.request('GET', path);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body).toMatchObject({ code: 'invalid_request' });
    }
  });
});
