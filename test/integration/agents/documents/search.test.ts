// Searching an Agent's documents on both databases: the BM25 ranking over the FTS5 and
// tsvector indexes, which end user's documents a search reads, empty results, reindexing,
// and that SQLite and PostgreSQL give the same results for the same knowledge base.
import { sql } from 'kysely';
import { AgentStore } from '../../../../src/agents/agent-store.ts';
import {
  CANDIDATE_LIMIT,
  DocumentSearch,
  type SearchScope,
} from '../../../../src/agents/capabilities/documents/document-search.ts';
import { DocumentStore } from '../../../../src/agents/capabilities/documents/document-store.ts';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import {
  beforeAll,
  DIALECTS,
  describe,
  describeEachDialect,
  expect,
  it,
  type OpenDatabase,
} from '../../../fixtures/index.ts';
import { publishedAgentSnapshot } from '../../../helpers/published-agent.ts';
import { seedWorkspace } from '../../../helpers/seed.ts';
import { fillerText, KIM, loadCorpus, SAM } from './corpus.ts';

/** A knowledge base on a fresh database of `dialect`: its handle and the Agent's id. */
async function knowledgeBase({ database, handle }: OpenDatabase) {
  const { workspaceId } = await seedWorkspace(handle);
  const agent = await publishedAgentSnapshot(handle.db, workspaceId, 'kb', {
    documentsEnabled: true,
  });
  await loadCorpus(handle.db, agent.agentId);
  return { database, handle, agentId: agent.agentId };
}

/** Queries a backend's end users ask, in several phrasings. */
const QUERIES = [
  'How long does a refund take?',
  'refunds damaged items',
  'Is water damage covered by the warranty?',
  'express shipping',
  'When are you open on Sunday?',
  'parental leave',
  'how do teams report progress',
  '退款',
  'gift wrapping',
  'business days',
];

describeEachDialect('document search on %s', (dialect) => {
  let handle: DatabaseHandle;
  let search: DocumentSearch;
  let agentId: string;
  const scope = (endUserId: string | null): SearchScope => ({ agentId, endUserId });
  const titles = async (query: string, endUserId: string | null = SAM, limit = 5) =>
    (await search.search(scope(endUserId), query, limit)).map((hit) => hit.title);

  beforeAll(async ({ databases }) => {
    ({ handle, agentId } = await knowledgeBase(await databases.get(dialect)));
    search = new DocumentSearch(handle.db);
  });

  it('ranks the document that answers the question first', async () => {
    expect((await titles('How long does a refund take?'))[0]).toBe('Refund policy');
    expect((await titles('Is water damage covered by the warranty?'))[0]).toBe('Warranty');
    expect((await titles('express shipping'))[0]).toBe('Shipping');
    expect((await titles('When are you open on Sunday?'))[0]).toBe('Opening hours');
    expect((await titles('退款'))[0]).toBe('退款政策');
    // Plurals and case do not matter: "Refunds" and "items" find "refund" and "item".
    expect((await titles('REFUNDS for damaged ITEMS'))[0]).toBe('Refund policy');
  });

  it('returns the chunk of a long document that holds the answer, with scores best first', async () => {
    const hits = await search.search(scope(null), 'parental leave', 5);
    expect(hits[0]).toMatchObject({ title: 'Employee handbook' });
    expect(hits[0]?.excerpt).toContain('sixteen weeks of paid parental leave');
    expect(hits[0]?.excerpt.length).toBeLessThanOrEqual(1500);
    const scores = hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores.every((score) => score > 0)).toBe(true);
    // A term every handbook chunk holds ranks the document's chunks, at most `limit`.
    const all = await search.search(scope(null), 'teams plan weekly work', 3);
    expect(all.map((hit) => hit.title)).toEqual([
      'Employee handbook',
      'Employee handbook',
      'Employee handbook',
    ]);
  });

  it("reads the shared documents and the end user's own, never another end user's", async () => {
    expect(await titles('gift wrapping', SAM)).toEqual(["Sam's order notes"]);
    expect(await titles('gift wrapping', KIM)).toEqual([]);
    expect(await titles('gift wrapping', null)).toEqual([]);
    expect(await titles('pineapple code word', KIM)).toEqual(["Kim's preferences"]);
    expect(await titles('pineapple code word', SAM)).toEqual([]);
    // Shared documents are found by everyone.
    for (const endUserId of [SAM, KIM, null]) {
      expect((await titles('warranty', endUserId))[0]).toBe('Warranty');
    }
  });

  it('finds nothing for words no document holds, for text without words and in an empty scope', async () => {
    expect(await search.search(scope(SAM), 'helicopter submarine', 5)).toEqual([]);
    expect(await search.search(scope(SAM), '?! … 🙂', 5)).toEqual([]);
    const other = await publishedAgentSnapshot(
      handle.db,
      (await seedWorkspace(handle)).workspaceId,
      'empty-kb',
      { documentsEnabled: true },
    );
    expect(await search.search({ agentId: other.agentId, endUserId: SAM }, 'refund', 5)).toEqual(
      [],
    );
  });

  it('finds a replaced document by its new words only, and a deleted one no more', async () => {
    const store = new DocumentStore(handle.db);
    const document = await store.create(agentId, SAM, {
      title: 'Loyalty programme',
      text: 'Members collect stamps; ten stamps give a free coffee.',
      contentType: 'text/plain',
    });
    expect(await titles('coffee stamps')).toEqual(['Loyalty programme']);
    await store.replace(agentId, document.id, {
      title: 'Loyalty programme',
      text: 'Members collect points; a hundred points give a voucher.',
      contentType: 'text/plain',
    });
    expect(await titles('coffee stamps')).toEqual([]);
    expect(await titles('voucher points')).toEqual(['Loyalty programme']);
    await store.delete(agentId, document.id);
    expect(await titles('voucher points')).toEqual([]);
  });

  it("deletes an Agent's chunks with the Agent, and with them its index entries", async () => {
    const snapshot = await publishedAgentSnapshot(
      handle.db,
      (await seedWorkspace(handle)).workspaceId,
      'short-lived',
      { documentsEnabled: true },
    );
    await loadCorpus(handle.db, snapshot.agentId);
    const doomed = { agentId: snapshot.agentId, endUserId: SAM };
    expect(await search.search(doomed, 'refund', 5)).not.toEqual([]);
    const chunksBefore = await countChunks(handle, snapshot.agentId);
    expect(chunksBefore).toBeGreaterThan(5);
    // As DELETE /v1/agents/{id} does.
    const deleted = await new AgentStore(handle.db).delete(
      snapshot.workspaceId,
      snapshot.environment,
      snapshot.agentId,
    );
    // Deleted (not null), with no sessions whose recordings must go too.
    expect(deleted).toEqual({ sessionIds: [] });
    expect(await countChunks(handle, snapshot.agentId)).toBe(0);
    expect(await search.search(doomed, 'refund', 5)).toEqual([]);
    if (dialect === 'sqlite') {
      // The FTS5 index holds exactly the chunks that remain.
      await sql`insert into agent_document_chunks_fts (agent_document_chunks_fts) values ('integrity-check')`.execute(
        handle.db,
      );
    }
    expect((await titles('refund'))[0]).toBe('Refund policy');
  });
});

async function countChunks(handle: DatabaseHandle, agentId: string): Promise<number> {
  const row = await handle.db
    .selectFrom('agent_document_chunks')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('agent_id', '=', agentId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('document search on SQLite and PostgreSQL', () => {
  const bases: Awaited<ReturnType<typeof knowledgeBase>>[] = [];

  beforeAll(async ({ databases }) => {
    for (const dialect of DIALECTS) bases.push(await knowledgeBase(await databases.get(dialect)));
  });

  const compareAll = async () => {
    for (const query of QUERIES) {
      for (const endUserId of [SAM, KIM, null]) {
        const results = await Promise.all(
          bases.map(async ({ handle, agentId }) =>
            (await new DocumentSearch(handle.db).search({ agentId, endUserId }, query, 5)).map(
              ({ title, excerpt, score }) => ({ title, excerpt, score }),
            ),
          ),
        );
        expect(results[1], `${query} (${endUserId})`).toEqual(results[0]);
      }
    }
  };

  it('gives the same results, in the same order with the same scores, for the same documents', async () => {
    await compareAll();
    // The comparison is not between empty lists.
    const [sqlite] = bases;
    const found = await new DocumentSearch(sqlite?.handle.db as never).search(
      { agentId: sqlite?.agentId as string, endUserId: SAM },
      'business days',
      5,
    );
    expect(found.map((hit) => hit.title).sort()).toEqual(['Refund policy', 'Shipping']);
  });

  it('still agrees when more chunks match than are ranked in full', async () => {
    // Two long documents of common words: several hundred chunks, most holding "the".
    for (const { handle, agentId } of bases) {
      const store = new DocumentStore(handle.db);
      for (const seed of [1, 2]) {
        await store.create(agentId, null, {
          title: `Archive ${seed}`,
          text: fillerText(seed, 200_000),
          contentType: 'text/plain',
        });
      }
    }
    expect(
      await countChunks(bases[0]?.handle as DatabaseHandle, bases[0]?.agentId as string),
    ).toBeGreaterThan(CANDIDATE_LIMIT);
    await compareAll();
    for (const query of ['customer battery replacement', 'the warehouse supplier contract']) {
      const results = await Promise.all(
        bases.map(async ({ handle, agentId }) =>
          (await new DocumentSearch(handle.db).search({ agentId, endUserId: null }, query, 5)).map(
            ({ title, excerpt, score }) => ({ title, excerpt, score }),
          ),
        ),
      );
      expect(results[0]).toHaveLength(5);
      expect(results[1]).toEqual(results[0]);
    }
    // A rare word is found among hundreds of chunks of common ones.
    const [sqlite] = bases;
    const hits = await new DocumentSearch(sqlite?.handle.db as never).search(
      { agentId: sqlite?.agentId as string, endUserId: null },
      'the parental leave of the team',
      1,
    );
    expect(hits[0]?.excerpt).toContain('sixteen weeks of paid parental leave');
  });
});
