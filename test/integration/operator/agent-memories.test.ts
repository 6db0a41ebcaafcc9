// The operator API behind the Agent page's Memory section: what an Agent remembers about
// one end user, read and written by Owner, Admin and Builder (not by Members: end users' data) with the rules
// of /v1/agents/{id}/memories (what one side writes, the other reads), scoped to the
// member's workspace and the listener's environment, and bad input refused with 400.

import { MemoryStore } from '../../../src/agents/capabilities/memory/memory-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
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
import { OperatorClient, type OperatorResponse } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const ADA = '0f8fad5b-d9cb-469f-a165-70867728950e';
const BOB = '6a2f41a3-c54c-4fe1-8c3f-1c1c0e3f1e11';
const LIMITS = { memories_per_end_user: 100, memory_chars: 500 };

interface Memory {
  id: string;
  agent_id: string;
  end_user_id: string;
  text: string;
  source: 'agent' | 'api';
  created_at: string;
}

function body<T>(response: OperatorResponse, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body as T;
}

describeEachDialect('operator API: Agent memories on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let owner: OperatorClient;
  let builder: OperatorClient;
  let member: OperatorClient;
  let stranger: OperatorClient;
  let ownerOnDevelopment: OperatorClient;
  let v1: ApiClient;
  let agentId: string;

  const createAgent = async (slug: string) =>
    body<{ agent: { id: string } }>(
      await owner.request('POST', '/agents', { slug, voice_id: NATIVE_VOICE }),
      201,
    ).agent.id;
  const listed = async (client: OperatorClient, endUser: string, agent = agentId) =>
    body<{ end_user_id: string; memories: Memory[]; limits: typeof LIMITS }>(
      await client.request('GET', `/agents/${agent}/memories?end_user_id=${endUser}`),
      200,
    );

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const other = await seedWorkspace(handle);
      await addOperator(handle.db, ws);
      await addOperator(handle.db, ws, { role: 'builder' });
      await addOperator(handle.db, ws, { role: 'member' });
      await addOperator(handle.db, other, { email: 'stranger@example.com' });
      server = await apis.start(database, { env: LLM_ENV });
      owner = await signInAs(server.url, 'owner@example.com');
      builder = await signInAs(server.url, 'builder@example.com');
      member = await signInAs(server.url, 'member@example.com');
      stranger = await signInAs(server.url, 'stranger@example.com');
      ownerOnDevelopment = await signInAs(server.devUrl, 'owner@example.com');
      v1 = apiClient(server.url, ws.productionKey);
      agentId = await createAgent('remembers');
    },
    budget({ servers: 1 }),
  );

  it('lists what the Agent and the API saved, adds and forgets, for the right roles', async () => {
    const base = `/agents/${agentId}/memories`;
    // What the Agent's remember tool saved in a conversation.
    const saved = await new MemoryStore(handle.db).save(
      { workspaceId: ws.workspaceId, environment: 'production', agentId, endUserId: ADA },
      'Prefers to be called Ada.',
      'agent',
    );
    expect(await listed(builder, ADA)).toEqual({
      end_user_id: ADA,
      memories: [
        {
          id: saved.memory.id,
          agent_id: agentId,
          end_user_id: ADA,
          text: 'Prefers to be called Ada.',
          source: 'agent',
          created_at: saved.memory.createdAt,
        },
      ],
      limits: LIMITS,
    });

    const added = body<{ memory: Memory }>(
      await owner.request('POST', base, {
        end_user_id: ADA.toUpperCase(),
        text: '  Is vegetarian. ',
      }),
      201,
    ).memory;
    expect(added).toEqual({
      id: expect.any(String),
      agent_id: agentId,
      end_user_id: ADA,
      text: 'Is vegetarian.',
      source: 'api',
      created_at: expect.any(String),
    });
    const byBuilder = body<{ memory: Memory }>(
      await builder.request('POST', base, { end_user_id: ADA, text: 'Lives in Lyon.' }),
      201,
    ).memory;
    await owner.request('POST', base, { end_user_id: BOB, text: 'Likes jazz.' });

    // Owners, Admins and Builders read the same list /v1 reads, oldest first; Bob's stay
    // Bob's. A Member does not: what an Agent knows of an end user follows the transcript rule.
    const ada = await listed(builder, ADA);
    expect(ada.memories.map((m) => [m.text, m.source])).toEqual([
      ['Prefers to be called Ada.', 'agent'],
      ['Is vegetarian.', 'api'],
      ['Lives in Lyon.', 'api'],
    ]);
    expect((await v1('GET', `/v1${base}?end_user_id=${ADA}`)).body.memories).toEqual(ada.memories);
    expect((await listed(builder, BOB)).memories.map((m) => m.text)).toEqual(['Likes jazz.']);

    // A Member reads and writes nothing: 403 forbidden, and nothing is forgotten.
    for (const [method, path, payload] of [
      ['GET', `${base}?end_user_id=${ADA}`, undefined],
      ['POST', base, { end_user_id: ADA, text: 'Not allowed.' }],
      ['DELETE', `${base}/${added.id}`, undefined],
      ['DELETE', `${base}?end_user_id=${ADA}`, undefined],
    ] as const) {
      const response = await member.request(method, path, payload);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'forbidden' });
    }
    expect((await listed(owner, ADA)).memories).toHaveLength(3);

    // Forget one, then everything about Ada; Bob's memory stays.
    expect(body(await builder.request('DELETE', `${base}/${added.id}`), 200)).toEqual({
      deleted: true,
    });
    expect((await listed(owner, ADA)).memories.map((m) => m.id)).toEqual([
      saved.memory.id,
      byBuilder.id,
    ]);
    expect((await owner.request('DELETE', `${base}/${added.id}`)).status).toBe(404);
    expect(body(await owner.request('DELETE', `${base}?end_user_id=${ADA}`), 200)).toEqual({
      forgotten: 2,
    });
    expect((await v1('GET', `/v1${base}?end_user_id=${ADA}`)).body.memories).toEqual([]);
    expect(body(await owner.request('DELETE', `${base}?end_user_id=${ADA}`), 200)).toEqual({
      forgotten: 0,
    });
    expect((await listed(builder, BOB)).memories.map((m) => m.text)).toEqual(['Likes jazz.']);
  });

  it('keeps to the workspace and environment: another Agent’s memories are 404', async () => {
    const base = `/agents/${agentId}/memories`;
    const memory = body<{ memory: Memory }>(
      await owner.request('POST', base, { end_user_id: ADA, text: 'Scoped fact.' }),
      201,
    ).memory;
    const otherAgent = await createAgent('forgets');
    const cases: [OperatorClient, string, string, unknown][] = [
      [stranger, 'GET', `${base}?end_user_id=${ADA}`, undefined],
      [stranger, 'POST', base, { end_user_id: ADA, text: 'Intruder.' }],
      [stranger, 'DELETE', `${base}/${memory.id}`, undefined],
      [stranger, 'DELETE', `${base}?end_user_id=${ADA}`, undefined],
      [ownerOnDevelopment, 'GET', `${base}?end_user_id=${ADA}`, undefined],
      [ownerOnDevelopment, 'DELETE', `${base}/${memory.id}`, undefined],
      [owner, 'DELETE', `/agents/${otherAgent}/memories/${memory.id}`, undefined],
      [owner, 'DELETE', `${base}/0190a0b0-0000-7000-8000-000000000000`, undefined],
      [owner, 'GET', `/agents/not-an-id/memories?end_user_id=${ADA}`, undefined],
    ];
    for (const [client, method, path, payload] of cases) {
      const response = await client.request(method, path, payload);
      expect({ path, method, status: response.status }).toEqual({ path, method, status: 404 });
      expect(response.body).toMatchObject({ code: 'not_found' });
    }
    expect((await listed(owner, ADA)).memories.map((m) => m.text)).toContain('Scoped fact.');
    expect((await listed(owner, ADA, otherAgent)).memories).toEqual([]);
  });

  it('refuses bad input with 400 invalid_request and answers 401 without a session', async () => {
    const base = `/agents/${agentId}/memories`;
    const bad: [string, string, unknown][] = [
      ['GET', base, undefined],
      ['GET', `${base}?end_user_id=someone`, undefined],
      ['GET', `${base}?end_user_id=${ADA}&limit=5`, undefined],
      ['DELETE', base, undefined],
      ['DELETE', `${base}?end_user_id=someone`, undefined],
      ['POST', base, { end_user_id: ADA, text: '   ' }],
      ['POST', base, { end_user_id: ADA, text: 'x'.repeat(501) }],
      ['POST', base, { end_user_id: 'someone', text: 'A fact.' }],
      ['POST', base, { text: 'Whose?' }],
      ['POST', base, { end_user_id: ADA, text: 'A fact.', source: 'agent' }],
    ];
    for (const [method, path, payload] of bad) {
      const response = await owner.request(method, path, payload);
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 400 });
      expect(response.body).toMatchObject({ code: 'invalid_request' });
    }
    const anonymous = new OperatorClient(server.url);
    for (const [method, path] of [
      ['GET', `${base}?end_user_id=${ADA}`],
      ['POST', base],
      ['DELETE', `${base}?end_user_id=${ADA}`],
    ] as const) {
      const response = await anonymous.request(method, path, method === 'POST' ? {} : undefined);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'unauthorized' });
    }
  });
});
