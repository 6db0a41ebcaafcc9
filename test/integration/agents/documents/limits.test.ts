// The rules of document bodies over real HTTP on both databases: validation, the limits on
// characters per document and title, the 1 MiB body limit, the number of documents per
// Agent and per end user, and authentication and the `agents` capability.
import { v7 as uuidv7 } from 'uuid';
import {
  MAX_DOCUMENT_CHARS,
  MAX_DOCUMENTS_PER_END_USER,
  MAX_SHARED_DOCUMENTS_PER_AGENT,
  MAX_TITLE_CHARS,
} from '../../../../src/agents/capabilities/documents/document-records.ts';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it, vi } from '../../../fixtures/index.ts';
import { type ApiClient, type ApiReply, apiClient, LLM_ENV } from '../../../helpers/agents.ts';
import type { TestDatabase } from '../../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../../helpers/seed.ts';
import type { RunningServer } from '../../../helpers/server.ts';
import { budget } from '../../../helpers/wait.ts';
import { KIM, SAM } from './corpus.ts';

vi.setConfig({ testTimeout: budget({}) });

function expectError(reply: ApiReply, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.code }, JSON.stringify(reply.body)).toEqual({
    status,
    code,
  });
}

/** A character of four UTF-8 bytes and two UTF-16 code units. */
const CLEF = '\u{1D11E}';

describeEachDialect('Agent document limits over HTTP on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let agentId: string;
  let counter = 0;

  const createAgent = async () => {
    const reply = await api('POST', '/v1/agents', { slug: `limits-${++counter}` });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.id as string;
  };
  const post = (body: unknown, agent = agentId) =>
    api('POST', `/v1/agents/${agent}/documents`, body);
  /** Documents written straight into the table (without chunks), to reach a limit fast. */
  const fill = async (agent: string, endUserId: string | null, count: number) => {
    const now = new Date().toISOString();
    const rows = Array.from({ length: count }, (_, i) => ({
      id: uuidv7(),
      agent_id: agent,
      end_user_id: endUserId,
      title: `Filler ${i}`,
      content_type: 'text/plain' as const,
      text: 'Filler.',
      chars: 7,
      created_at: now,
      updated_at: now,
    }));
    for (let i = 0; i < rows.length; i += 100) {
      await handle.db
        .insertInto('agent_documents')
        .values(rows.slice(i, i + 100))
        .execute();
    }
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: LLM_ENV });
      api = apiClient(server.url, ws.productionKey);
      agentId = await createAgent();
    },
    budget({ servers: 1 }),
  );

  it('refuses bodies that do not fit the schema with 400 invalid_request', async () => {
    const bad: unknown[] = [
      {},
      { title: 'No text' },
      { text: 'No title' },
      { title: '', text: 'x' },
      { title: '   ', text: 'x' },
      { title: 'x', text: '' },
      { title: 'x', text: ' \n\t\r ' },
      { title: 'Two\nlines', text: 'x' },
      { title: 'Tab\there', text: 'x' },
      { title: 'x', text: 'NUL \u0000 inside' },
      { title: 'x', text: 'x', content_type: 'text/html' },
      { title: 'x', text: 'x', end_user_id: 'sam' },
      { title: 'x', text: 'x', end_user_id: null },
      { title: 'x', text: 'x', owner: SAM },
      { title: 42, text: 'x' },
      [],
    ];
    for (const body of bad) expectError(await post(body), 400, 'invalid_request');
    expectError(
      await api('POST', `/v1/agents/${agentId}/documents`, Buffer.from('{"title":'), {
        'content-type': 'application/json',
      }),
      400,
      'invalid_request',
    );
    expectError(
      await api('POST', `/v1/agents/${agentId}/documents`, Buffer.from('title=x'), {
        'content-type': 'application/x-www-form-urlencoded',
      }),
      415,
      'invalid_request',
    );
    const document = (await api('GET', `/v1/agents/${agentId}/documents`)).body.documents;
    expect(document).toEqual([]);
  });

  it('takes a title and a text up to their limits in characters (code points) and not beyond', async () => {
    const title = CLEF.repeat(MAX_TITLE_CHARS);
    const text = CLEF.repeat(MAX_DOCUMENT_CHARS);
    // About 800 KB of JSON: within the 1 MiB body limit of the route.
    const created = await post({ title, text });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ title, chars: MAX_DOCUMENT_CHARS });
    const path = `/v1/agents/${agentId}/documents/${created.body.id}`;
    expect((await api('GET', path)).body.text).toBe(text);

    expectError(await post({ title: `${title}x`, text: 'x' }), 400, 'invalid_request');
    expectError(await post({ title: 'x', text: `${text}x` }), 400, 'invalid_request');
    expectError(await api('PUT', path, { title: 'x', text: `${text}x` }), 400, 'invalid_request');
    const replaced = await api('PUT', path, {
      title: 'Long',
      text: 'y'.repeat(MAX_DOCUMENT_CHARS),
    });
    expect(replaced.body).toMatchObject({ title: 'Long', chars: MAX_DOCUMENT_CHARS });
    expect((await api('DELETE', path)).status).toBe(204);
  });

  it('refuses a body over 1 MiB with 413 invalid_request', async () => {
    const body = { title: 'Huge', text: 'ab '.repeat(400_000) };
    expectError(await post(body), 413, 'invalid_request');
    expect((await api('GET', `/v1/agents/${agentId}/documents`)).body.documents).toEqual([]);
  });

  it(`holds at most ${MAX_DOCUMENTS_PER_END_USER} documents of each end user`, async () => {
    const agent = await createAgent();
    await fill(agent, SAM, MAX_DOCUMENTS_PER_END_USER - 1);
    expect((await post({ title: 'Last', text: 'x', end_user_id: SAM }, agent)).status).toBe(201);
    const refused = await post({ title: 'One more', text: 'x', end_user_id: SAM }, agent);
    expectError(refused, 409, 'conflict');
    expect(refused.body.detail).toContain(String(MAX_DOCUMENTS_PER_END_USER));
    // Other end users and the shared documents have their own count.
    expect((await post({ title: 'Kim', text: 'x', end_user_id: KIM }, agent)).status).toBe(201);
    expect((await post({ title: 'Shared', text: 'x' }, agent)).status).toBe(201);
    // Deleting one makes room again.
    const page = await api('GET', `/v1/agents/${agent}/documents?end_user_id=${SAM}&limit=1`);
    const oldest = page.body.documents[0].id;
    expect((await api('DELETE', `/v1/agents/${agent}/documents/${oldest}`)).status).toBe(204);
    expect((await post({ title: 'Again', text: 'x', end_user_id: SAM }, agent)).status).toBe(201);
  });

  it(`holds at most ${MAX_SHARED_DOCUMENTS_PER_AGENT} shared documents per Agent`, async () => {
    const agent = await createAgent();
    await fill(agent, null, MAX_SHARED_DOCUMENTS_PER_AGENT - 1);
    expect((await post({ title: 'Last', text: 'x' }, agent)).status).toBe(201);
    expectError(await post({ title: 'One more', text: 'x' }, agent), 409, 'conflict');
    expect((await post({ title: 'Own', text: 'x', end_user_id: SAM }, agent)).status).toBe(201);
    // Another Agent of the workspace has its own limit.
    expect((await post({ title: 'Elsewhere', text: 'x' }, await createAgent())).status).toBe(201);
  });

  it('needs a workspace key of a workspace with the agents capability', async () => {
    const path = `/v1/agents/${agentId}/documents`;
    expectError(await apiClient(server.url, undefined)('GET', path), 401, 'unauthorized');
    expectError(await apiClient(server.url, 'awp_nope')('POST', path, {}), 401, 'unauthorized');
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const client = apiClient(server.url, ttsOnly.productionKey);
    expectError(await client('GET', path), 403, 'capability_disabled');
    expectError(await client('POST', path, { title: 'x', text: 'x' }), 403, 'capability_disabled');
  });
});
