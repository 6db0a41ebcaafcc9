// The server SDK's Agent documents against the real api on both databases: every method of
// `client.agents.documents` round trips with the documented shapes, listAll pages through
// everything, and refusals arrive as typed errors.
import {
  type AgentDocument,
  AwpClient,
  type AwpError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
} from '../../../backend-sdk/src/index.ts';
import { DocumentSearch } from '../../../src/agents/capabilities/documents/document-search.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { LLM_ENV } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const UNKNOWN = '01890a5d-ac96-774b-bcce-b302099a8057';

async function failure(promise: Promise<unknown>): Promise<AwpError> {
  try {
    await promise;
  } catch (error) {
    return error as AwpError;
  }
  throw new Error('expected the call to fail');
}

describeEachDialect('server SDK Agent documents on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let client: AwpClient;
  let agentId: string;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      const ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: LLM_ENV });
      client = new AwpClient({ apiKey: ws.productionKey, baseUrl: server.url, maxAttempts: 1 });
      agentId = (await client.agents.create({ slug: 'knowledge' })).id;
    },
    budget({ servers: 1 }),
  );

  it('creates, reads, replaces and deletes a document', async () => {
    const text = '# Refunds\n\nRefunds are paid within 5 business days.';
    const created: AgentDocument = await client.agents.documents.create(agentId, {
      title: 'Refund policy',
      text,
      content_type: 'text/markdown',
      end_user_id: END_USER,
    });
    expect(created).toEqual({
      id: expect.any(String),
      agent_id: agentId,
      end_user_id: END_USER,
      title: 'Refund policy',
      content_type: 'text/markdown',
      chars: text.length,
      created_at: expect.any(String),
      updated_at: created.created_at,
    });
    const read = await client.agents.documents.get(agentId, created.id);
    expect(read).toEqual({ ...created, text });

    const replaced = await client.agents.documents.update(agentId, created.id, {
      title: 'Refunds',
      text: 'Refunds take a week.',
    });
    expect(replaced).toMatchObject({
      id: created.id,
      end_user_id: END_USER,
      title: 'Refunds',
      content_type: 'text/plain',
      chars: 20,
    });
    const search = new DocumentSearch(handle.db);
    const scope = { agentId, endUserId: END_USER };
    expect((await search.search(scope, 'week', 5)).map((hit) => hit.title)).toEqual(['Refunds']);
    expect(await search.search(scope, 'business days', 5)).toEqual([]);

    await client.agents.documents.delete(agentId, created.id);
    expect(await failure(client.agents.documents.get(agentId, created.id))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('lists pages, filters, and lists everything with listAll', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const document = await client.agents.documents.create(agentId, {
        title: `Doc ${i}`,
        text: `Text ${i}.`,
        ...(i % 2 === 0 ? {} : { end_user_id: END_USER }),
      });
      made.push(document.id);
    }
    const page = await client.agents.documents.list(agentId, { limit: 2 });
    expect(page.documents.map((d) => d.id)).toEqual([made[4], made[3]]);
    expect(page.next_cursor).toBe(made[3]);
    const all: string[] = [];
    for await (const document of client.agents.documents.listAll(agentId, { limit: 2 })) {
      all.push(document.id);
    }
    expect(all).toEqual([...made].reverse());
    const shared = await client.agents.documents.list(agentId, { shared: true });
    expect(shared.documents.map((d) => d.id)).toEqual([made[4], made[2], made[0]]);
    const own = await client.agents.documents.list(agentId, { end_user_id: END_USER });
    expect(own.documents.map((d) => d.id)).toEqual([made[3], made[1]]);
    const notShared = await client.agents.documents.list(agentId, { shared: false });
    expect(notShared.documents.map((d) => d.id)).toEqual([made[3], made[1]]);
  });

  it('throws typed errors for unknown Agents and documents, bad input and oversized bodies', async () => {
    const documents = client.agents.documents;
    expect(await failure(documents.list(UNKNOWN))).toBeInstanceOf(NotFoundError);
    expect(await failure(documents.get(agentId, UNKNOWN))).toBeInstanceOf(NotFoundError);
    expect(await failure(documents.delete(agentId, UNKNOWN))).toBeInstanceOf(NotFoundError);
    expect(
      await failure(documents.update(agentId, UNKNOWN, { title: 'x', text: 'y' })),
    ).toBeInstanceOf(NotFoundError);
    const invalid = await failure(documents.create(agentId, { title: '', text: 'x' }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid.detail).toContain('title');
    const huge = await failure(
      documents.create(agentId, { title: 'Huge', text: 'ab '.repeat(400_000) }),
    );
    expect(huge).toBeInstanceOf(PayloadTooLargeError);
  });
});
