// The operator API's Agent sessions (the dashboard's Agents › Sessions page) against a real
// api on both databases: sessions recorded through `AgentSessions` as the worker records
// them, listed newest first with exactly what GET /v1/agent-sessions/{id} reports, one
// session with its transcript, the Agent filter, the environment's scope and the roles;
// a session's recording served byte for byte and deleted by an Owner or Admin only.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { recordingObjectKey } from '../../../src/agent-sessions/session-recordings.ts';
import { AgentStore } from '../../../src/agents/agent-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { audioStorageDir } from '../../../src/storage/audio-storage-dir.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { storeSessionRecording } from '../../helpers/session-recordings.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

const LATENCY = {
  turns: 2,
  endOfSpeechToFirstAudioMs: { p50: 840, p95: 990, max: 990 },
  transcriptionDelayMs: { p50: 310, p95: 400, max: 400 },
  llmFirstTokenMs: { p50: 220, p95: 260, max: 260 },
  ttsFirstAudioMs: null,
};

describeEachDialect('operator API Agent sessions on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let builder: OperatorClient;
  let agentSessions: AgentSessions;
  const agents: Record<'tutor' | 'concierge', string> = {} as never;
  const sessionIds: string[] = [];

  const publishedAgent = async (slug: string) => {
    const created = await api('POST', '/v1/agents', { slug, voice_id: NATIVE_VOICE });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await api('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };

  /** A session as the api creates it and the worker runs it, oldest first by creation. */
  const recordSession = async (agentId: string, endUserId: string | undefined) => {
    const snapshot = await new AgentStore(handle.db).activePublication(
      ws.workspaceId,
      'production',
      agentId,
    );
    if (!snapshot) throw new Error('the Agent is not published');
    // UUIDv7: sessions created in the same millisecond still sort in creation order.
    const id = uuidv7();
    await agentSessions.create({
      id,
      snapshot,
      apiKeyId: ws.productionKeyId,
      endUserId,
      room: `agent-session-${id}`,
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60_000),
    });
    sessionIds.push(id);
    return id;
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      await addOperator(handle.db, ws, { role: 'builder' });
      await addOperator(handle.db, ws, { role: 'member' });
      await addOperator(handle.db, ws);
      await addOperator(handle.db, ws, { role: 'admin' });
      const other = await seedWorkspace(handle);
      await addOperator(handle.db, other, { email: 'elsewhere@example.com' });
      server = await apis.start(database, { env: LLM_ENV });
      api = apiClient(server.url, ws.productionKey);
      builder = await signInAs(server.url, 'builder@example.com');
      agentSessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 });
      agents.tutor = await publishedAgent('tutor');
      agents.concierge = await publishedAgent('concierge');

      // An ended conversation with a transcript, usage and latency ...
      const ended = await recordSession(agents.tutor, 'user-17');
      await agentSessions.markActive(ended);
      await agentSessions.addTurn({
        id: 'turn-1',
        sessionId: ended,
        role: 'agent',
        text: 'Hello! What shall we practise today?',
        interrupted: false,
      });
      await agentSessions.addTurn({
        id: 'turn-2',
        sessionId: ended,
        role: 'user',
        text: 'Irregular verbs, please.',
        interrupted: false,
      });
      await agentSessions.addTurn({
        id: 'turn-3',
        sessionId: ended,
        role: 'agent',
        text: 'Great, let us start with',
        interrupted: true,
      });
      await agentSessions.addUsage(ended, {
        llmInputTokens: 812,
        llmOutputTokens: 96,
        ttsChars: 61,
        sttMs: 4_200,
      });
      await agentSessions.recordLatency(ended, LATENCY);
      await agentSessions.end(ended, 'ended', 'user_left', {
        sessionMs: 95_000,
        millicredits: 2_375,
      });
      // ... then one still connecting, of the other Agent.
      await recordSession(agents.concierge, undefined);
    },
    budget({ servers: 1 }),
  );

  it('lists the environment’s sessions newest first, each as /v1/agent-sessions reports it', async () => {
    const response = await builder.request('GET', '/agent-sessions');
    expect(response.status).toBe(200);
    const listed = (response.body as { sessions: Record<string, unknown>[] }).sessions;
    expect(listed.map((session) => session.session_id)).toEqual([...sessionIds].reverse());
    for (const session of listed) {
      const reported = await api('GET', `/v1/agent-sessions/${session.session_id}`);
      expect(reported.status).toBe(200);
      const { agent_slug, end_user_id, ...rest } = session;
      expect(rest).toEqual(reported.body);
    }
    expect(listed[1]).toMatchObject({
      agent_id: agents.tutor,
      agent_slug: 'tutor',
      end_user_id: 'user-17',
      kind: 'managed',
      state: 'ended',
      end_reason: 'user_left',
      transcript_count: 3,
      usage: {
        charge: { credits: 2.375 },
        session_seconds: 95,
        llm_input_tokens: 812,
        llm_output_tokens: 96,
        tts_characters: 61,
        stt_seconds: 4.2,
        web_searches: 0,
      },
      latency: {
        turns: 2,
        end_of_speech_to_first_audio_ms: { p50: 840, p95: 990, max: 990 },
        transcription_delay_ms: { p50: 310, p95: 400, max: 400 },
        llm_first_token_ms: { p50: 220, p95: 260, max: 260 },
        tts_first_audio_ms: null,
      },
    });
    expect(listed[0]).toMatchObject({
      agent_slug: 'concierge',
      end_user_id: null,
      state: 'connecting',
      transcript_count: 0,
      latency: null,
    });
  });

  it('filters by Agent and bounds the page size', async () => {
    const one = await builder.request('GET', `/agent-sessions?agent_id=${agents.concierge}`);
    expect(one.status).toBe(200);
    expect(
      (one.body as { sessions: { session_id: string }[] }).sessions.map((s) => s.session_id),
    ).toEqual([sessionIds[1]]);
    const newest = await builder.request('GET', '/agent-sessions?limit=1');
    expect((newest.body as { sessions: unknown[] }).sessions).toHaveLength(1);
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'page=2']) {
      const refused = await builder.request('GET', `/agent-sessions?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('pages with next_cursor and finds an end user’s sessions', async () => {
    // Three more sessions of one end user, after the two above.
    const more = [];
    for (let i = 0; i < 3; i++) more.push(await recordSession(agents.concierge, 'user-42'));
    const ids = (body: unknown) =>
      (body as { sessions: { session_id: string }[] }).sessions.map((s) => s.session_id);
    const newestFirst = [...sessionIds].reverse();

    const first = await builder.request('GET', '/agent-sessions?limit=2');
    expect(ids(first.body)).toEqual(newestFirst.slice(0, 2));
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    expect(cursor).toMatch(new RegExp(`~${newestFirst[1]}$`));
    const second = await builder.request('GET', `/agent-sessions?limit=2&cursor=${cursor}`);
    expect(ids(second.body)).toEqual(newestFirst.slice(2, 4));
    const third = await builder.request(
      'GET',
      `/agent-sessions?limit=2&cursor=${(second.body as { next_cursor: string }).next_cursor}`,
    );
    expect(ids(third.body)).toEqual(newestFirst.slice(4));
    expect((third.body as { next_cursor: string | null }).next_cursor).toBeNull();

    const theirs = await builder.request('GET', '/agent-sessions?end_user_id=user-42');
    expect(ids(theirs.body)).toEqual([...more].reverse());
    const one = await builder.request('GET', '/agent-sessions?end_user_id=user-17');
    expect(ids(one.body)).toEqual([sessionIds[0]]);
    // A cursor is a position: in another environment it pages that environment's sessions.
    const development = await signInAs(server.devUrl, 'builder@example.com');
    const foreign = await development.request('GET', `/agent-sessions?cursor=${cursor}`);
    expect([foreign.status, foreign.body]).toEqual([200, { sessions: [], next_cursor: null }]);
    const bare = await builder.request('GET', `/agent-sessions?cursor=${newestFirst[1]}`);
    expect([bare.status, (bare.body as { code: string }).code]).toEqual([400, 'invalid_request']);
  });

  it('shows one session with its transcript in order, the interrupted turn marked', async () => {
    const response = await builder.request('GET', `/agent-sessions/${sessionIds[0]}`);
    expect(response.status).toBe(200);
    const body = response.body as {
      session: Record<string, unknown>;
      transcript: Record<string, unknown>[];
    };
    expect(body.session).toMatchObject({
      session_id: sessionIds[0],
      agent_slug: 'tutor',
      end_user_id: 'user-17',
      transcript_count: 3,
    });
    expect(body.transcript).toEqual([
      {
        id: 'turn-1',
        role: 'agent',
        text: 'Hello! What shall we practise today?',
        interrupted: false,
        created_at: expect.any(String),
      },
      {
        id: 'turn-2',
        role: 'user',
        text: 'Irregular verbs, please.',
        interrupted: false,
        created_at: expect.any(String),
      },
      {
        id: 'turn-3',
        role: 'agent',
        text: 'Great, let us start with',
        interrupted: true,
        created_at: expect.any(String),
      },
    ]);
  });

  it('keeps to the listener’s environment and to Owner, Admin and Builder', async () => {
    const development = await signInAs(server.devUrl, 'builder@example.com');
    const listed = await development.request('GET', '/agent-sessions');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ sessions: [], next_cursor: null });
    const one = await development.request('GET', `/agent-sessions/${sessionIds[0]}`);
    expect(one.status).toBe(404);
    expect(one.body).toMatchObject({ code: 'not_found' });
    expect((await builder.request('GET', `/agent-sessions/${crypto.randomUUID()}`)).status).toBe(
      404,
    );

    const member = await signInAs(server.url, 'member@example.com');
    for (const path of ['/agent-sessions', `/agent-sessions/${sessionIds[0]}`]) {
      const refused = await member.request('GET', path);
      expect(refused.status, path).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
  });

  it('serves a session’s recording as /v1 does, to its workspace and environment only', async () => {
    const id = await recordSession(agents.tutor, 'user-17');
    await agentSessions.end(id, 'ended', 'user_left', { sessionMs: 2_000, millicredits: 50 });
    const stored = await storeSessionRecording(
      handle.db,
      database.dataDir,
      { id, workspaceId: ws.workspaceId },
      2,
    );
    const path = `/agent-sessions/${id}/recording`;

    const served = await builder.request('GET', path);
    expect(served.status).toBe(200);
    expect(Buffer.compare(served.body as Buffer, stored.audio)).toBe(0);
    expect(served.headers.get('content-type')).toBe('audio/ogg');
    expect(served.headers.get('x-audio-duration-ms')).toBe(String(stored.durationMs));
    expect(served.headers.get('cache-control')).toBe('private, no-store');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    const v1 = await fetch(`${server.url}/v1${path}`, {
      headers: { authorization: `Bearer ${ws.productionKey}` },
    });
    expect(v1.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await v1.arrayBuffer()), stored.audio)).toBe(0);

    const session = await builder.request('GET', `/agent-sessions/${id}`);
    expect((session.body as { session: { recording: unknown } }).session.recording).toEqual({
      url: `/v1/agent-sessions/${id}/recording`,
      content_type: 'audio/ogg',
      duration_seconds: stored.durationMs / 1000,
    });
    // A session without a recording, an unknown one, another environment, another workspace.
    const others = [
      [builder, `/agent-sessions/${sessionIds[0]}/recording`],
      [builder, `/agent-sessions/${crypto.randomUUID()}/recording`],
      [await signInAs(server.devUrl, 'builder@example.com'), path],
      [await signInAs(server.url, 'elsewhere@example.com'), path],
    ] as const;
    for (const [client, otherPath] of others) {
      const missing = await client.request('GET', otherPath);
      expect(missing.status, otherPath).toBe(404);
      expect(missing.body).toMatchObject({ code: 'not_found' });
    }
    const elsewhere = others[3][0];
    expect((await elsewhere.request('DELETE', path)).status).toBe(404);
    const member = await signInAs(server.url, 'member@example.com');
    const refused = await member.request('GET', path);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
    // Still there for its workspace.
    expect((await builder.request('GET', path)).status).toBe(200);
  });

  it('deletes a recording for an Owner or Admin only; the session stays', async () => {
    const recorded = [];
    for (let i = 0; i < 2; i++) {
      const id = await recordSession(agents.tutor, 'user-17');
      await agentSessions.end(id, 'ended', 'user_left', { sessionMs: 1_000, millicredits: 25 });
      await storeSessionRecording(handle.db, database.dataDir, { id, workspaceId: ws.workspaceId });
      recorded.push(id);
    }
    const member = await signInAs(server.url, 'member@example.com');
    for (const client of [builder, member]) {
      const refused = await client.request('DELETE', `/agent-sessions/${recorded[0]}/recording`);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    expect((await builder.request('GET', `/agent-sessions/${recorded[0]}/recording`)).status).toBe(
      200,
    );

    const managers = [
      await signInAs(server.url, 'owner@example.com'),
      await signInAs(server.url, 'admin@example.com'),
    ];
    for (const [index, manager] of managers.entries()) {
      const path = `/agent-sessions/${recorded[index]}/recording`;
      const deleted = await manager.request('DELETE', path);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ deleted: true });
      const gone = await builder.request('GET', path);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'not_found' });
      const again = await manager.request('DELETE', path);
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ code: 'not_found' });
      const session = await builder.request('GET', `/agent-sessions/${recorded[index]}`);
      expect(session.status).toBe(200);
      expect((session.body as { session: { recording: unknown } }).session.recording).toBeNull();
    }
    // Nothing is left in the audio store either.
    for (const id of recorded) {
      const file = join(
        audioStorageDir({ DATA_DIR: database.dataDir }),
        recordingObjectKey(ws.workspaceId, id),
      );
      expect(existsSync(file), file).toBe(false);
    }
  });
});
