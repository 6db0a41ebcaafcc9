import { setImmediate } from 'node:timers/promises';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Environment } from '../../../app/config.ts';
import { lookahead, takePage } from '../../../db/page.ts';
import type { AgentDocumentsTable, Database } from '../../../db/schema.ts';
import { inScope } from '../../../db/tenant-scope.ts';
import { chunkText } from './chunking.ts';
import {
  type AgentDocument,
  type AgentDocumentWithText,
  codePointLength,
  type DocumentContent,
  type DocumentFilter,
  type DocumentPage,
} from './document-records.ts';
import { searchTerms } from './search-terms.ts';

/** Chunk rows inserted per statement (well under both dialects' parameter limits). */
const CHUNK_BATCH = 50;

/**
 * Agent documents in the database. A document and its chunks are written in one
 * transaction, so a search never sees a document half indexed; deleting a document (or its
 * Agent) deletes its chunks through the foreign keys, and SQLite's triggers drop them from
 * the full-text index.
 */
export class DocumentStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** True when the Agent exists in this workspace and environment. */
  async agentExists(workspaceId: string, environment: Environment, agentId: string) {
    const row = await this.db
      .selectFrom('agents')
      .select('id')
      .where('id', '=', agentId)
      .$call(inScope({ workspaceId, environment }))
      .executeTakeFirst();
    return row !== undefined;
  }

  /** How many documents the Agent has that are shared (`null`) or owned by one end user. */
  async count(agentId: string, endUserId: string | null): Promise<number> {
    let query = this.db
      .selectFrom('agent_documents')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('agent_id', '=', agentId);
    query =
      endUserId === null
        ? query.where('end_user_id', 'is', null)
        : query.where('end_user_id', '=', endUserId);
    return Number((await query.executeTakeFirstOrThrow()).count);
  }

  async create(
    agentId: string,
    endUserId: string | null,
    content: DocumentContent,
  ): Promise<AgentDocument> {
    const id = uuidv7();
    const now = new Date().toISOString();
    const row = {
      id,
      agent_id: agentId,
      end_user_id: endUserId,
      title: content.title,
      content_type: content.contentType,
      text: content.text,
      chars: codePointLength(content.text),
      created_at: now,
      updated_at: now,
    };
    const chunks = await indexedChunks(content);
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('agent_documents').values(row).execute();
      await insertChunks(trx, row, chunks);
    });
    return toDocument(row);
  }

  /** Replaces the document's title, text and format and its chunks; null when not found. */
  async replace(
    agentId: string,
    id: string,
    content: DocumentContent,
  ): Promise<AgentDocument | null> {
    const chunks = await indexedChunks(content);
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('agent_documents')
        .set({
          title: content.title,
          content_type: content.contentType,
          text: content.text,
          chars: codePointLength(content.text),
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', id)
        .where('agent_id', '=', agentId)
        .returningAll()
        .executeTakeFirst();
      if (!row) return null;
      await trx.deleteFrom('agent_document_chunks').where('document_id', '=', id).execute();
      await insertChunks(trx, row, chunks);
      return toDocument(row);
    });
  }

  async get(agentId: string, id: string): Promise<AgentDocumentWithText | null> {
    const row = await this.db
      .selectFrom('agent_documents')
      .selectAll()
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return row ? { ...toDocument(row), text: row.text } : null;
  }

  /** The Agent's documents that match `filter`, newest first (UUIDv7 ids: creation order). */
  async list(agentId: string, filter: DocumentFilter): Promise<DocumentPage> {
    let query = this.db
      .selectFrom('agent_documents')
      .select([
        'id',
        'agent_id',
        'end_user_id',
        'title',
        'content_type',
        'chars',
        'created_at',
        'updated_at',
      ])
      .where('agent_id', '=', agentId);
    if (filter.endUserId !== undefined) query = query.where('end_user_id', '=', filter.endUserId);
    if (filter.shared === true) query = query.where('end_user_id', 'is', null);
    if (filter.shared === false) query = query.where('end_user_id', 'is not', null);
    if (filter.before !== undefined) query = query.where('id', '<', filter.before);
    const rows = await query.orderBy('id', 'desc').limit(lookahead(filter.limit)).execute();
    const page = takePage(rows, filter.limit, (last) => last.id);
    return { documents: page.rows.map(toDocument), nextCursor: page.nextCursor };
  }

  /** Deletes the document with its chunks; false when there is none. */
  async delete(agentId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('agent_documents')
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /**
   * Titles of the documents a conversation's search reads (the shared ones and the end
   * user's own), newest first, at most `limit`, with how many there are in all.
   */
  async visibleTitles(
    agentId: string,
    endUserId: string | null,
    limit: number,
  ): Promise<{ titles: string[]; total: number }> {
    const visible = this.db
      .selectFrom('agent_documents')
      .where('agent_id', '=', agentId)
      .where((eb) =>
        endUserId === null
          ? eb('end_user_id', 'is', null)
          : eb.or([eb('end_user_id', 'is', null), eb('end_user_id', '=', endUserId)]),
      );
    const rows = await visible.select('title').orderBy('id', 'desc').limit(limit).execute();
    const total =
      rows.length < limit
        ? rows.length
        : Number(
            (
              await visible
                .select((eb) => eb.fn.countAll<number>().as('count'))
                .executeTakeFirstOrThrow()
            ).count,
          );
    return { titles: rows.map((row) => row.title), total };
  }
}

/** A chunk's text and its search terms (its own and its document's title's). */
interface IndexedChunk {
  text: string;
  terms: string[];
}

/**
 * Cuts a document into chunks and computes their terms, before any transaction opens: the
 * largest document takes a tenth of a second or two of CPU, which is given back to the
 * event loop every {@link CHUNK_BATCH} chunks.
 */
async function indexedChunks(content: DocumentContent): Promise<IndexedChunk[]> {
  const titleTerms = searchTerms(content.title);
  const chunks: IndexedChunk[] = [];
  for (const text of chunkText(content.text)) {
    chunks.push({ text, terms: [...titleTerms, ...searchTerms(text)] });
    if (chunks.length % CHUNK_BATCH === 0) await setImmediate();
  }
  return chunks;
}

async function insertChunks(
  trx: Transaction<Database>,
  document: { id: string; agent_id: string; end_user_id: string | null },
  chunks: readonly IndexedChunk[],
): Promise<void> {
  const rows = chunks.map((chunk, seq) => ({
    document_id: document.id,
    agent_id: document.agent_id,
    end_user_id: document.end_user_id,
    seq,
    text: chunk.text,
    terms: chunk.terms.join(' '),
    term_count: chunk.terms.length,
  }));
  for (let i = 0; i < rows.length; i += CHUNK_BATCH) {
    await trx
      .insertInto('agent_document_chunks')
      .values(rows.slice(i, i + CHUNK_BATCH))
      .execute();
  }
}

function toDocument(row: Omit<Selectable<AgentDocumentsTable>, 'text'>): AgentDocument {
  return {
    id: row.id,
    agentId: row.agent_id,
    endUserId: row.end_user_id,
    title: row.title,
    contentType: row.content_type,
    chars: Number(row.chars),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
