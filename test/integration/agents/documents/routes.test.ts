// /v1/agents/{agentId}/documents over real HTTP on both databases: create, read, list with
// filters and pages, replace (reindexed: old words no longer match), delete, and the scope
// of the key (other workspaces, environments and Agents are 404 not_found).
import { setTimeout as sleep } from 'node:timers/promises';
import { DocumentSearch } from '../../../../src/agents/capabilities/documents/document-search.ts';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../../fixtures/index.ts';
import { type ApiClient, type ApiReply, apiClient, LLM_ENV } from '../../../helpers/agents.ts';
import type { TestDatabase } from '../../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../../helpers/seed.ts';
import type { RunningServer } from '../../../helpers/server.ts';
import { budget } from '../../../helpers/wait.ts';
import { KIM, SAM } from './corpus.ts';

vi.setConfig({ testTimeout: budget({}) });

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNKNOWN = '0190a5f4-0000-7000-8000-0000000000ff';

function expectError(reply: ApiReply, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.code }, JSON.stringify(reply.body)).toEqual({
    status,
    code,
  });
}

describeEachDialect('Agent documents over HTTP on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let devApi: ApiClient;
  let otherApi: ApiClient;
  let agentId: string;
  let counter = 0;

  const createAgent = async (client = api) => {
    const reply = await client('POST', '/v1/agents', { slug: `docs-${++counter}` });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as string;
  };
  const documents = (agent: string, rest = '') => `/v1/agents/${agent}/documents${rest}`;
  const create = async (body: Record<string, unknown>, agent = agentId, client = api) => {
    const reply = await client('POST', documents(agent), body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body as Record<string, unknown> & { id: string };
  };
  const found = async (agent: string, endUserId: string | null, query: string) =>
    (await new DocumentSearch(handle.db).search({ agentId: agent, endUserId }, query, 5)).map(
      (hit) => hit.title,
    );

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const other = await seedWorkspace(handle);
      server = await apis.start(database, { env: LLM_ENV });
      api = apiClient(server.url, ws.productionKey);
      devApi = apiClient(server.devUrl, ws.developmentKey);
      otherApi = apiClient(server.url, other.productionKey);
      agentId = await createAgent();
    },
    budget({ servers: 1 }),
  );

  it('creates a shared document and answers it without its text', async () => {
    const text = 'Refunds are paid within 5 business days. Café 🙂';
    const reply = await api('POST', documents(agentId), { title: 'Refund policy', text });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(UUID),
      agent_id: agentId,
      end_user_id: null,
      title: 'Refund policy',
      content_type: 'text/plain',
      // Code points: the emoji is one character (two UTF-16 code units).
      chars: 47,
      created_at: expect.stringMatching(ISO),
      updated_at: reply.body.created_at,
    });
    const read = await api('GET', documents(agentId, `/${reply.body.id}`));
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...reply.body, text });
    expect(await found(agentId, SAM, 'refund business days')).toEqual(['Refund policy']);
  });

  it("creates an end user's own Markdown document, found only in that end user's searches", async () => {
    const text = '# Notes\n\n- Prefers **Friday** deliveries\n- Code word: pineapple';
    const reply = await api('POST', documents(agentId), {
      title: "Kim's notes",
      text,
      content_type: 'text/markdown',
      end_user_id: KIM.toUpperCase(),
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      end_user_id: KIM,
      content_type: 'text/markdown',
      chars: text.length,
    });
    expect(await found(agentId, KIM, 'pineapple')).toEqual(["Kim's notes"]);
    expect(await found(agentId, SAM, 'pineapple')).toEqual([]);
    expect(await found(agentId, null, 'pineapple')).toEqual([]);
  });

  it('replaces title, text and format, keeps the owner, and reindexes: old words no longer match', async () => {
    const created = await create({
      title: 'Loyalty',
      text: 'Ten stamps give a free coffee.',
      content_type: 'text/markdown',
      end_user_id: SAM,
    });
    expect(await found(agentId, SAM, 'stamps coffee')).toEqual(['Loyalty']);
    await sleep(5);
    const path = documents(agentId, `/${created.id}`);
    const reply = await api('PUT', path, { title: 'Loyalty points', text: 'Points buy vouchers.' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      ...created,
      title: 'Loyalty points',
      content_type: 'text/plain',
      chars: 20,
      updated_at: expect.stringMatching(ISO),
    });
    expect(reply.body.updated_at > String(created.updated_at)).toBe(true);
    expect((await api('GET', path)).body.text).toBe('Points buy vouchers.');
    expect(await found(agentId, SAM, 'stamps coffee')).toEqual([]);
    expect(await found(agentId, SAM, 'vouchers')).toEqual(['Loyalty points']);
    // The owner never changes: the body has no end_user_id.
    expectError(
      await api('PUT', path, { title: 't', text: 'x', end_user_id: KIM }),
      400,
      'invalid_request',
    );
    expect((await api('GET', path)).body.end_user_id).toBe(SAM);
  });

  it('deletes a document with 204; it is gone for reads, writes and search', async () => {
    const created = await create({ title: 'Temporary', text: 'Ephemeral zeppelin facts.' });
    const path = documents(agentId, `/${created.id}`);
    const reply = await api('DELETE', path);
    expect(reply.status).toBe(204);
    expect(reply.bytes.byteLength).toBe(0);
    expectError(await api('GET', path), 404, 'not_found');
    expectError(await api('PUT', path, { title: 'x', text: 'y' }), 404, 'not_found');
    expectError(await api('DELETE', path), 404, 'not_found');
    expect(await found(agentId, null, 'zeppelin')).toEqual([]);
  });

  it('lists newest first, pages with cursors, and filters by end user or shared', async () => {
    const agent = await createAgent();
    const made: { id: string; owner: string | null }[] = [];
    for (const [i, owner] of [null, SAM, KIM, null, SAM, null, SAM].entries()) {
      made.push({
        id: (
          await create(
            { title: `Doc ${i}`, text: `Text ${i}.`, ...(owner ? { end_user_id: owner } : {}) },
            agent,
          )
        ).id,
        owner,
      });
    }
    const newestFirst = made.map((d) => d.id).reverse();
    const all = await api('GET', documents(agent));
    expect(all.status).toBe(200);
    expect(all.body.documents.map((d: { id: string }) => d.id)).toEqual(newestFirst);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.documents[0]).not.toHaveProperty('text');

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api('GET', documents(agent, query));
      expect(page.status).toBe(200);
      pages.push(page.body.documents.map((d: { id: string }) => d.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(newestFirst);
    // An exactly full last page has no next cursor.
    const firstSix = await api('GET', documents(agent, `?limit=6&cursor=${newestFirst[0]}`));
    expect(firstSix.body.next_cursor).toBeNull();

    const ids = async (query: string) =>
      (await api('GET', documents(agent, query))).body.documents.map((d: { id: string }) => d.id);
    const of = (owner: string | null) =>
      made
        .filter((d) => d.owner === owner)
        .map((d) => d.id)
        .reverse();
    expect(await ids(`?end_user_id=${SAM}`)).toEqual(of(SAM));
    expect(await ids(`?end_user_id=${KIM.toUpperCase()}`)).toEqual(of(KIM));
    expect(await ids('?shared=true')).toEqual(of(null));
    expect(await ids('?shared=false')).toEqual(
      made
        .filter((d) => d.owner)
        .map((d) => d.id)
        .reverse(),
    );
    expect(await ids(`?shared=true&end_user_id=${SAM}`)).toEqual([]);
    expect(await ids(`?end_user_id=${UNKNOWN}`)).toEqual([]);
    expect(await ids(`?end_user_id=${SAM}&limit=2&cursor=${of(SAM)[1]}`)).toEqual([of(SAM)[2]]);
    // A cursor of a document since deleted still pages on.
    const newest = newestFirst[0] as string;
    expect((await api('DELETE', documents(agent, `/${newest}`))).status).toBe(204);
    expect(await ids(`?cursor=${newest}&limit=1`)).toEqual([newestFirst[1]]);
  });

  it('refuses bad list queries', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?cursor=abc',
      '?end_user_id=sam',
      '?shared=yes',
      '?sort=title',
    ]) {
      expectError(await api('GET', documents(agentId, query)), 400, 'invalid_request');
    }
  });

  it('deletes the documents of a deleted Agent', async () => {
    const agent = await createAgent();
    const created = await create({ title: 'Doomed', text: 'Quokka habitats.' }, agent);
    expect((await api('DELETE', `/v1/agents/${agent}`)).status).toBe(204);
    expectError(await api('GET', documents(agent, `/${created.id}`)), 404, 'not_found');
    const rows = await handle.db
      .selectFrom('agent_documents')
      .select('id')
      .where('agent_id', '=', agent)
      .execute();
    expect(rows).toEqual([]);
    expect(await found(agent, null, 'quokka')).toEqual([]);
  });

  it('answers 404 not_found for Agents and documents outside the key’s scope', async () => {
    const created = await create({ title: 'Scoped', text: 'Only here.' });
    const otherAgent = await createAgent();
    const foreignAgent = await createAgent(otherApi);
    const devAgent = await createAgent(devApi);
    const routes = (agent: string, id: string) =>
      [
        ['GET', documents(agent)],
        ['POST', documents(agent), { title: 't', text: 'x' }],
        ['GET', documents(agent, `/${id}`)],
        ['PUT', documents(agent, `/${id}`), { title: 't', text: 'x' }],
        ['DELETE', documents(agent, `/${id}`)],
      ] as const;
    const cases: [ApiClient, string, string][] = [
      [otherApi, agentId, created.id], // another workspace's key
      [devApi, agentId, created.id], // the development environment
      [api, foreignAgent, created.id], // an Agent of another workspace
      [api, devAgent, created.id], // an Agent of the development environment
      [api, UNKNOWN, created.id], // no such Agent
      [api, 'not-a-uuid', created.id],
    ];
    for (const [client, agent, id] of cases) {
      for (const [method, path, body] of routes(agent, id)) {
        expectError(await client(method, path, body), 404, 'not_found');
      }
    }
    // The document belongs to another Agent of the same workspace, or does not exist.
    for (const id of [created.id, UNKNOWN, 'nope', `${created.id}x`]) {
      for (const [method, path, body] of routes(otherAgent, id).slice(2)) {
        expectError(await api(method, path, body), 404, 'not_found');
      }
    }
    // Nothing was changed.
    expect((await api('GET', documents(agentId, `/${created.id}`))).body).toMatchObject({
      title: 'Scoped',
      text: 'Only here.',
    });
    // An id in upper case names the same document.
    expect(
      (await api('GET', documents(agentId.toUpperCase(), `/${created.id.toUpperCase()}`))).status,
    ).toBe(200);
  });
});
