// The operator API behind the Agent page's Knowledge section: an Agent's documents (shared
// ones read by every member, an end user's own not by Members) and written by Owner, Admin
// and Builder with the rules of
// /v1/agents/{id}/documents (what one side writes, the other reads), scoped to the member's
// workspace and the listener's environment, and bad input refused with 400.

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

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const LIMITS = {
  title_chars: 200,
  text_chars: 200_000,
  shared_documents: 1000,
  documents_per_end_user: 100,
};

interface Document {
  id: string;
  agent_id: string;
  end_user_id: string | null;
  title: string;
  content_type: string;
  chars: number;
  created_at: string;
  updated_at: string;
  text?: string;
}

function body<T>(response: OperatorResponse, status: number): T {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body as T;
}

describeEachDialect('operator API: Agent documents on %s', (dialect) => {
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

  const createAgent = async (client: OperatorClient, slug: string) =>
    body<{ agent: { id: string } }>(
      await client.request('POST', '/agents', { slug, voice_id: NATIVE_VOICE }),
      201,
    ).agent.id;

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
      agentId = await createAgent(owner, 'librarian');
    },
    budget({ servers: 1 }),
  );

  it('adds, lists, reads, replaces and deletes documents as /v1 does, for the right roles', async () => {
    const base = `/agents/${agentId}/documents`;
    const shared = body<{ document: Document }>(
      await owner.request('POST', base, {
        title: 'Refund policy',
        text: 'Refunds are paid within 5 business days.',
        content_type: 'text/markdown',
      }),
      201,
    ).document;
    expect(shared).toEqual({
      id: expect.any(String),
      agent_id: agentId,
      end_user_id: null,
      title: 'Refund policy',
      content_type: 'text/markdown',
      chars: 40,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const own = body<{ document: Document }>(
      await builder.request('POST', base, {
        title: 'Order notes',
        text: 'Order 4521: gift wrapping.',
        end_user_id: END_USER.toUpperCase(),
      }),
      201,
    ).document;
    expect(own).toMatchObject({ end_user_id: END_USER, content_type: 'text/plain', chars: 26 });

    // Owner and Builder read the list, newest first, with the limits; /v1 lists the same.
    const v1List = await v1('GET', `/v1${base}`);
    for (const client of [owner, builder]) {
      expect(body(await client.request('GET', base), 200)).toEqual({
        documents: [own, shared],
        next_cursor: null,
        limits: LIMITS,
      });
    }
    expect(v1List.body.documents).toEqual([own, shared]);
    // A Member reads the shared documents only: an end user's own follow the transcript rule.
    expect(body(await member.request('GET', base), 200)).toEqual({
      documents: [shared],
      next_cursor: null,
      limits: LIMITS,
    });
    for (const path of [
      `${base}?shared=false`,
      `${base}?end_user_id=${END_USER}`,
      `${base}/${own.id}`,
    ]) {
      const refused = await member.request('GET', path);
      expect({ path, status: refused.status }).toEqual({ path, status: 403 });
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    const first = body<{ documents: Document[]; next_cursor: string }>(
      await builder.request('GET', `${base}?limit=1`),
      200,
    );
    expect(first.documents.map((d) => d.id)).toEqual([own.id]);
    expect(first.next_cursor).toBe(own.id);
    const second = body<{ documents: Document[]; next_cursor: string | null }>(
      await builder.request('GET', `${base}?limit=1&cursor=${first.next_cursor}`),
      200,
    );
    expect([second.documents.map((d) => d.id), second.next_cursor]).toEqual([[shared.id], null]);
    const ids = async (query: string) =>
      body<{ documents: Document[] }>(
        await builder.request('GET', `${base}?${query}`),
        200,
      ).documents.map((d) => d.id);
    expect(await ids('shared=true')).toEqual([shared.id]);
    expect(await ids('shared=false')).toEqual([own.id]);
    expect(await ids(`end_user_id=${END_USER}`)).toEqual([own.id]);
    expect(await ids('end_user_id=6a2f41a3-c54c-4fe1-8c3f-1c1c0e3f1e11')).toEqual([]);

    // A shared document with its text, for every member.
    expect(body(await member.request('GET', `${base}/${shared.id}`), 200)).toEqual({
      document: { ...shared, text: 'Refunds are paid within 5 business days.' },
    });

    // A Member writes nothing: 403 forbidden, and the documents stay as they were.
    const refused: [string, string, unknown][] = [
      ['POST', base, { title: 'Mine', text: 'Not allowed.' }],
      ['PUT', `${base}/${shared.id}`, { title: 'Changed', text: 'Not allowed.' }],
      ['DELETE', `${base}/${shared.id}`, undefined],
    ];
    for (const [method, path, payload] of refused) {
      const response = await member.request(method, path, payload);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'forbidden' });
    }
    expect((await v1('GET', `/v1${base}`)).body.documents).toEqual([own, shared]);

    // Replace keeps the owner and reindexes: /v1 reads the new text and search finds it.
    const replaced = body<{ document: Document }>(
      await owner.request('PUT', `${base}/${own.id}`, {
        title: 'Order notes (updated)',
        text: 'Order 4521: gift wrapping, blue ribbon.',
        content_type: 'text/markdown',
      }),
      200,
    ).document;
    expect(replaced).toMatchObject({
      id: own.id,
      end_user_id: END_USER,
      title: 'Order notes (updated)',
      content_type: 'text/markdown',
      chars: 39,
      created_at: own.created_at,
    });
    expect((await v1('GET', `/v1${base}/${own.id}`)).body.text).toBe(
      'Order 4521: gift wrapping, blue ribbon.',
    );

    // Delete (an Owner or a Builder): gone for the dashboard and /v1 alike.
    expect(body(await builder.request('DELETE', `${base}/${own.id}`), 200)).toEqual({
      deleted: true,
    });
    expect((await owner.request('GET', `${base}/${own.id}`)).status).toBe(404);
    expect((await v1('GET', `/v1${base}/${own.id}`)).status).toBe(404);
    expect((await owner.request('DELETE', `${base}/${own.id}`)).status).toBe(404);

    // A document written through /v1 is the dashboard's too.
    const fromApi = await v1('POST', `/v1${base}`, { title: 'From the API', text: 'Hello.' });
    expect(fromApi.status).toBe(201);
    expect(
      body<{ documents: Document[] }>(await member.request('GET', base), 200).documents.map(
        (d) => d.title,
      ),
    ).toEqual(['From the API', 'Refund policy']);
  });

  it('keeps to the workspace and environment: another Agent’s documents are 404', async () => {
    const base = `/agents/${agentId}/documents`;
    const doc = body<{ document: Document }>(
      await owner.request('POST', base, { title: 'Scoped', text: 'Only here.' }),
      201,
    ).document;
    const otherAgent = await createAgent(owner, 'other-librarian');
    const devAgent = body<{ agent: { id: string } }>(
      await ownerOnDevelopment.request('POST', '/agents', { slug: 'dev-librarian' }),
      201,
    ).agent.id;
    const cases: [OperatorClient, string, string][] = [
      [stranger, 'GET', base],
      [stranger, 'GET', `${base}/${doc.id}`],
      [stranger, 'POST', base],
      [stranger, 'DELETE', `${base}/${doc.id}`],
      [ownerOnDevelopment, 'GET', base],
      [ownerOnDevelopment, 'GET', `${base}/${doc.id}`],
      [ownerOnDevelopment, 'PUT', `${base}/${doc.id}`],
      [owner, 'GET', `/agents/${devAgent}/documents`],
      [owner, 'GET', `/agents/${otherAgent}/documents/${doc.id}`],
      [owner, 'DELETE', `/agents/${otherAgent}/documents/${doc.id}`],
      [owner, 'GET', `${base}/0190a0b0-0000-7000-8000-000000000000`],
      [owner, 'GET', `${base}/not-an-id`],
      [owner, 'GET', '/agents/not-an-id/documents'],
    ];
    for (const [client, method, path] of cases) {
      const payload =
        method === 'POST' || method === 'PUT' ? { title: 'Intruder', text: 'No.' } : undefined;
      const response = await client.request(method, path, payload);
      expect({ path, method, status: response.status }).toEqual({ path, method, status: 404 });
      expect(response.body).toMatchObject({ code: 'not_found' });
    }
    expect((await v1('GET', `/v1${base}/${doc.id}`)).body.title).toBe('Scoped');
    expect(
      body<{ documents: Document[] }>(
        await ownerOnDevelopment.request('GET', `/agents/${devAgent}/documents`),
        200,
      ).documents,
    ).toEqual([]);
  });

  it('refuses bad input with 400 invalid_request and answers 401 without a session', async () => {
    const base = `/agents/${agentId}/documents`;
    const bad: [string, string, unknown][] = [
      ['POST', base, { title: '   ', text: 'Blank title.' }],
      ['POST', base, { title: 'Two\nlines', text: 'A title is one line.' }],
      ['POST', base, { title: 'x'.repeat(201), text: 'Long title.' }],
      ['POST', base, { title: 'Too long', text: 'a'.repeat(200_001) }],
      ['POST', base, { title: 'No text', text: '' }],
      ['POST', base, { title: 'Bad owner', text: 'Text.', end_user_id: 'someone' }],
      ['POST', base, { title: 'Bad format', text: 'Text.', content_type: 'text/html' }],
      ['POST', base, { title: 'Extra', text: 'Text.', tags: ['x'] }],
      ['POST', base, 'not json'],
      ['GET', `${base}?limit=0`, undefined],
      ['GET', `${base}?limit=101`, undefined],
      ['GET', `${base}?cursor=not-a-uuid`, undefined],
      ['GET', `${base}?shared=maybe`, undefined],
      ['GET', `${base}?end_user_id=someone`, undefined],
      ['GET', `${base}?color=blue`, undefined],
    ];
    for (const [method, path, payload] of bad) {
      const response = await owner.request(method, path, payload);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body).toMatchObject({ code: 'invalid_request' });
    }
    const doc = body<{ document: Document }>(
      await owner.request('POST', base, { title: 'Kept', text: 'Unchanged.' }),
      201,
    ).document;
    const put = await owner.request('PUT', `${base}/${doc.id}`, {
      title: 'Kept',
      text: 'Unchanged.',
      end_user_id: END_USER,
    });
    expect(put.status).toBe(400);
    expect((await v1('GET', `/v1${base}/${doc.id}`)).body).toMatchObject({
      end_user_id: null,
      text: 'Unchanged.',
    });

    const anonymous = new OperatorClient(server.url);
    for (const [method, path] of [
      ['GET', base],
      ['GET', `${base}/${doc.id}`],
      ['POST', base],
      ['DELETE', `${base}/${doc.id}`],
    ] as const) {
      const response = await anonymous.request(method, path, method === 'POST' ? {} : undefined);
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 'unauthorized' });
    }
  });
});
