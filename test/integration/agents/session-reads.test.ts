// GET /v1/agent-sessions and GET /v1/agent-sessions/{id}/transcript against a real api on
// both databases: sessions recorded through `AgentSessions` as the worker records them,
// listed newest first with exactly what GET /v1/agent-sessions/{id} reports, filtered by
// Agent and end user, paged; transcripts in order; the scope of the key; the server
// library's list, listAll and transcript.

import { v7 as uuidv7 } from 'uuid';
import { AwpClient } from '../../../backend-sdk/src/index.ts';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { AgentStore } from '../../../src/agents/agent-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({}) });

describeEachDialect('GET /v1/agent-sessions and transcripts on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let other: SeededWorkspace;
  let api: ApiClient;
  let agentSessions: AgentSessions;
  const agents: Record<'tutor' | 'concierge', string> = {} as never;
  /** Oldest first. */
  const sessions: { id: string; agent: 'tutor' | 'concierge'; endUserId: string | null }[] = [];
  let otherSessionId: string;

  const publishedAgent = async (client: ApiClient, slug: string) => {
    const created = await client('POST', '/v1/agents', { slug, voice_id: NATIVE_VOICE });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await client('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };
  const recordSession = async (
    workspace: SeededWorkspace,
    agentId: string,
    endUserId: string | undefined,
  ) => {
    const snapshot = await new AgentStore(handle.db).activePublication(
      workspace.workspaceId,
      'production',
      agentId,
    );
    if (!snapshot) throw new Error('the Agent is not published');
    // UUIDv7: sessions created in the same millisecond still sort in creation order.
    const id = uuidv7();
    await agentSessions.create({
      id,
      snapshot,
      apiKeyId: workspace.productionKeyId,
      endUserId,
      room: `agent-session-${id}`,
      overrides: undefined,
      sessionContext: undefined,
      expiresAt: new Date(Date.now() + 60_000),
    });
    return id;
  };

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    other = await seedWorkspace(handle);
    server = await apis.start(database, { env: LLM_ENV });
    api = apiClient(server.url, ws.productionKey);
    agentSessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 });
    agents.tutor = await publishedAgent(api, 'tutor');
    agents.concierge = await publishedAgent(api, 'concierge');
    const plan: ['tutor' | 'concierge', string | null][] = [
      ['tutor', 'user-17'],
      ['concierge', null],
      ['tutor', 'user-17'],
      ['tutor', 'user-42'],
      ['concierge', 'user-17'],
    ];
    for (const [agent, endUserId] of plan) {
      const id = await recordSession(ws, agents[agent], endUserId ?? undefined);
      sessions.push({ id, agent, endUserId });
    }
    // The first one ran and ended with a transcript; the third is running.
    const [first, , third] = sessions as [(typeof sessions)[0], unknown, (typeof sessions)[0]];
    await agentSessions.markActive(first.id);
    await agentSessions.addTurn({
      id: `${first.id}-a`,
      sessionId: first.id,
      role: 'agent',
      text: 'Hello! What shall we practise?',
      interrupted: false,
    });
    await agentSessions.addTurn({
      id: `${first.id}-b`,
      sessionId: first.id,
      role: 'user',
      text: 'Irregular verbs.',
      interrupted: false,
    });
    await agentSessions.addTurn({
      id: `${first.id}-c`,
      sessionId: first.id,
      role: 'agent',
      text: 'Great, let us',
      interrupted: true,
    });
    await agentSessions.end(first.id, 'ended', 'user_left', {
      sessionMs: 95_000,
      millicredits: 2_375,
    });
    await agentSessions.markActive(third.id);
    const otherApi = apiClient(server.url, other.productionKey);
    otherSessionId = await recordSession(
      other,
      await publishedAgent(otherApi, 'elsewhere'),
      'user-17',
    );
  }, 120_000);

  /** What the list holds for a session: its report, its end user, no conversation id. */
  const expected = async (id: string) => ({
    ...(await api('GET', `/v1/agent-sessions/${id}`)).body,
    end_user_id: sessions.find((s) => s.id === id)?.endUserId ?? null,
    chat_session_id: null,
  });
  const newestFirst = () => [...sessions].reverse();

  it('lists the environment’s sessions newest first, page by page, as their reports', async () => {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const reply = await api(
        'GET',
        `/v1/agent-sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      for (const entry of reply.body.sessions)
        expect(entry).toEqual(await expected(entry.session_id));
      pages.push(reply.body.sessions.map((s: { session_id: string }) => s.session_id));
      cursor = reply.body.next_cursor;
    } while (cursor);
    const ids = newestFirst().map((s) => s.id);
    // Five sessions in pages of two; a full last page would have named a cursor.
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    // A cursor is a position: a well-formed one that names no session still pages.
    const past = await api('GET', `/v1/agent-sessions?cursor=2999-01-01T00:00:00.000Z~${uuidv7()}`);
    expect([
      past.status,
      past.body.sessions.map((s: { session_id: string }) => s.session_id),
    ]).toEqual([200, ids]);
    // The default page holds them all; the other workspace's session is not among them.
    const all = await api('GET', '/v1/agent-sessions');
    expect(all.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(ids);
    expect(all.body.next_cursor).toBeNull();
    const [ended] = sessions;
    const endedEntry = all.body.sessions.find(
      (s: { session_id: string }) => s.session_id === ended?.id,
    );
    expect(endedEntry).toMatchObject({
      state: 'ended',
      end_reason: 'user_left',
      transcript_count: 3,
      end_user_id: 'user-17',
    });
  });

  it('filters by Agent and by end user', async () => {
    const ids = (rows: { session_id: string }[]) => rows.map((s) => s.session_id);
    const tutor = await api('GET', `/v1/agent-sessions?agent_id=${agents.tutor}`);
    expect(ids(tutor.body.sessions)).toEqual(
      newestFirst()
        .filter((s) => s.agent === 'tutor')
        .map((s) => s.id),
    );
    const user17 = await api('GET', '/v1/agent-sessions?end_user_id=user-17');
    expect(ids(user17.body.sessions)).toEqual(
      newestFirst()
        .filter((s) => s.endUserId === 'user-17')
        .map((s) => s.id),
    );
    const both = await api(
      'GET',
      `/v1/agent-sessions?end_user_id=user-17&agent_id=${agents.concierge}`,
    );
    expect(ids(both.body.sessions)).toEqual([sessions[4]?.id]);
    expect((await api('GET', '/v1/agent-sessions?end_user_id=nobody')).body).toEqual({
      sessions: [],
      next_cursor: null,
    });
  });

  it('refuses bad queries and cursors not of the `{time}~{id}` format with invalid_request', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=two',
      'colour=blue',
      'cursor=0',
      `cursor=${otherSessionId}`,
      `cursor=${uuidv7()}`,
    ]) {
      const reply = await api('GET', `/v1/agent-sessions?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body, query).toMatchObject({
        event: 'error',
        code: 'invalid_request',
        retryable: false,
      });
    }
    // The development key, on its own listener, sees none of production's sessions.
    const dev = await apiClient(server.devUrl, ws.developmentKey)('GET', '/v1/agent-sessions');
    expect(dev.body).toEqual({ sessions: [], next_cursor: null });
    expect((await apiClient(server.url, undefined)('GET', '/v1/agent-sessions')).status).toBe(401);
  });

  it('reads a transcript in order, for the session’s own workspace and environment only', async () => {
    const [ended, , running] = sessions;
    const reply = await api('GET', `/v1/agent-sessions/${ended?.id}/transcript`);
    expect(reply.status).toBe(200);
    const stored = await handle.db
      .selectFrom('agent_session_messages')
      .select(['id', 'created_at'])
      .where('session_id', '=', ended?.id ?? '')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(reply.body).toEqual({
      session_id: ended?.id,
      transcript: [
        {
          id: `${ended?.id}-a`,
          role: 'agent',
          text: 'Hello! What shall we practise?',
          interrupted: false,
          created_at: stored[0]?.created_at,
        },
        {
          id: `${ended?.id}-b`,
          role: 'user',
          text: 'Irregular verbs.',
          interrupted: false,
          created_at: stored[1]?.created_at,
        },
        {
          id: `${ended?.id}-c`,
          role: 'agent',
          text: 'Great, let us',
          interrupted: true,
          created_at: stored[2]?.created_at,
        },
      ],
    });
    expect(stored.map((row) => row.id)).toEqual(
      reply.body.transcript.map((t: { id: string }) => t.id),
    );
    // A running session's transcript so far: none yet.
    expect((await api('GET', `/v1/agent-sessions/${running?.id}/transcript`)).body).toEqual({
      session_id: running?.id,
      transcript: [],
    });
    for (const [client, id] of [
      [apiClient(server.url, other.productionKey), ended?.id],
      [apiClient(server.devUrl, ws.developmentKey), ended?.id],
      [api, uuidv7()],
      [api, otherSessionId],
    ] as const) {
      const missing = await client('GET', `/v1/agent-sessions/${id}/transcript`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'not_found' });
    }
  });

  it('serves the same through the server library', async () => {
    const sdk = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url });
    const page = await sdk.agentSessions.list({ agent_id: agents.tutor, limit: 2 });
    expect(page).toEqual(
      (await api('GET', `/v1/agent-sessions?agent_id=${agents.tutor}&limit=2`)).body,
    );
    const all: string[] = [];
    for await (const session of sdk.agentSessions.listAll({ end_user_id: 'user-17' }))
      all.push(session.session_id);
    expect(all).toEqual(
      newestFirst()
        .filter((s) => s.endUserId === 'user-17')
        .map((s) => s.id),
    );
    const [ended] = sessions;
    expect(await sdk.agentSessions.transcript(ended?.id ?? '')).toEqual(
      (await api('GET', `/v1/agent-sessions/${ended?.id}/transcript`)).body,
    );
  });
});
