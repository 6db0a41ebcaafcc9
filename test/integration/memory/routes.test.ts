// `/v1/agents/{agentId}/memories` over the real api: what an Agent remembers about each end
// user, read, seeded and erased by the workspace's backend, scoped to the Agent.

import { MAX_MEMORIES_PER_END_USER } from '../../../src/agents/capabilities/memory/memory-store.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { apiClient } from '../../helpers/agents.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const SAM = '0f8fad5b-d9cb-469f-a165-70867728950e';
const ALEX = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachDialect('Agent memories on %s', (dialect) => {
  let rig: ConversationRig;
  let agentId: string;
  const path = () => `/v1/agents/${agentId}/memories`;
  const list = async (endUser: string, id = agentId) => {
    const reply = await rig.api('GET', `/v1/agents/${id}/memories?end_user_id=${endUser}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.memories.map((m: { text: string }) => m.text) as string[];
  };

  beforeAll(async ({ databases, apis }) => {
    rig = await startConversationRig(await databases.get(dialect), apis);
    agentId = await rig.publishedAgent({ memory_enabled: true });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('adds a memory, lists it for its end user only, and keeps one copy of the same text', async () => {
    const created = await rig.api('POST', path(), { end_user_id: SAM, text: '  Loves jazz.  ' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      agent_id: agentId,
      end_user_id: SAM,
      text: 'Loves jazz.',
      source: 'api',
      created_at: expect.any(String),
    });
    const again = await rig.api('POST', path(), {
      end_user_id: SAM.toUpperCase(),
      text: 'Loves jazz.',
    });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(created.body.id);
    const listed = await rig.api('GET', `${path()}?end_user_id=${SAM}`);
    expect(listed.body).toEqual({ end_user_id: SAM, memories: [created.body] });
    expect(await list(ALEX)).toEqual([]);
  });

  it('forgets one memory, then everything of one end user, leaving the others', async () => {
    const a = await rig.api('POST', path(), { end_user_id: ALEX, text: 'Plays chess.' });
    await rig.api('POST', path(), { end_user_id: ALEX, text: 'Works nights.' });
    await rig.api('POST', path(), { end_user_id: SAM, text: 'Has two cats.' });
    const gone = await rig.api('DELETE', `${path()}/${a.body.id}`);
    expect(gone.status).toBe(204);
    expect(await list(ALEX)).toEqual(['Works nights.']);
    const again = await rig.api('DELETE', `${path()}/${a.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
    const all = await rig.api('DELETE', `${path()}?end_user_id=${ALEX}`);
    expect(all.status).toBe(204);
    expect(await list(ALEX)).toEqual([]);
    expect(await list(SAM)).toEqual(['Loves jazz.', 'Has two cats.']);
  });

  it(`keeps the newest ${MAX_MEMORIES_PER_END_USER} memories of an end user`, async () => {
    const other = await rig.publishedAgent({ memory_enabled: true });
    for (let i = 1; i <= MAX_MEMORIES_PER_END_USER + 2; i++) {
      const reply = await rig.api('POST', `/v1/agents/${other}/memories`, {
        end_user_id: SAM,
        text: `Fact ${i}.`,
      });
      expect(reply.status).toBe(201);
    }
    const texts = await list(SAM, other);
    expect(texts).toHaveLength(MAX_MEMORIES_PER_END_USER);
    expect(texts[0]).toBe('Fact 3.');
    expect(texts.at(-1)).toBe(`Fact ${MAX_MEMORIES_PER_END_USER + 2}.`);
    // Another Agent's memories of the same end user are its own.
    expect(await list(SAM)).toEqual(['Loves jazz.', 'Has two cats.']);
  });

  it('refuses bad input with the error object', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', path(), { end_user_id: 'sam', text: 'x' }],
      ['POST', path(), { end_user_id: SAM, text: '   ' }],
      ['POST', path(), { end_user_id: SAM, text: 'x'.repeat(501) }],
      ['POST', path(), { end_user_id: SAM, text: 'x', extra: 1 }],
      ['GET', path(), undefined],
      ['GET', `${path()}?end_user_id=nope`, undefined],
      ['DELETE', path(), undefined],
    ];
    for (const [method, url, body] of cases) {
      const reply = await rig.api(method, url, body);
      expect(reply.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(400);
      expect(reply.body).toMatchObject({
        event: 'error',
        code: 'invalid_request',
        retryable: false,
      });
    }
  });

  it('answers 404 for an Agent of another workspace or environment', async () => {
    const foreign = await seedWorkspace(rig.handle, { credits: 10 });
    const stranger = apiClient(rig.server.url, foreign.productionKey);
    const development = apiClient(rig.server.devUrl, rig.ws.developmentKey);
    for (const client of [stranger, development]) {
      for (const [method, url, body] of [
        ['GET', `${path()}?end_user_id=${SAM}`, undefined],
        ['POST', path(), { end_user_id: SAM, text: 'Intruder.' }],
        ['DELETE', `${path()}?end_user_id=${SAM}`, undefined],
      ] as const) {
        const reply = await client(method, url, body);
        expect(reply.status, `${method} ${url}`).toBe(404);
        expect(reply.body.code).toBe('not_found');
      }
    }
    const [memory] = (await rig.api('GET', `${path()}?end_user_id=${SAM}`)).body.memories;
    expect((await stranger('DELETE', `${path()}/${memory.id}`)).status).toBe(404);
    expect(await list(SAM)).toEqual(['Loves jazz.', 'Has two cats.']);
  });

  it('forgets an Agent’s memories with the Agent', async () => {
    const doomed = await rig.publishedAgent({ memory_enabled: true });
    await rig.api('POST', `/v1/agents/${doomed}/memories`, { end_user_id: SAM, text: 'Temp.' });
    expect((await rig.api('DELETE', `/v1/agents/${doomed}`)).status).toBe(204);
    const rows = await rig.handle.db
      .selectFrom('agent_memories')
      .select('id')
      .where('agent_id', '=', doomed)
      .execute();
    expect(rows).toEqual([]);
  });
});
