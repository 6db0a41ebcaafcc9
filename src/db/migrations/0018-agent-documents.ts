import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * Agent documents: an Agent's knowledge base (`agent_documents`, deleted with the Agent),
 * each document shared by the Agent's end users or owned by one, and its searchable pieces
 * (`agent_document_chunks`, deleted with the document). A chunk's `terms` column holds its
 * normalized search terms separated by spaces; the full-text index over them is the
 * dialect's own: an FTS5 table kept by triggers on SQLite (its `ascii` tokenizer splits
 * on the spaces and leaves the terms as they are), a generated `tsvector` of the same terms
 * with a GIN index on PostgreSQL. Both hold exactly the terms the application computed.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .createTable('agent_documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('end_user_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('chars', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'agent_documents_content_type',
      sql`content_type in ('text/plain', 'text/markdown')`,
    )
    .execute();
  // Pages newest first (ids are UUIDv7), of one end user or the shared ones; counts per owner.
  await db.schema
    .createIndex('agent_documents_owner_idx')
    .on('agent_documents')
    .columns(['agent_id', 'end_user_id', 'id'])
    .execute();
  await db.schema
    .createIndex('agent_documents_agent_idx')
    .on('agent_documents')
    .columns(['agent_id', 'id'])
    .execute();

  await db.schema
    .createTable('agent_document_chunks')
    .addColumn('id', postgres ? 'bigint' : 'integer', (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
    )
    .addColumn('document_id', 'text', (c) =>
      c.notNull().references('agent_documents.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('end_user_id', 'text')
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('terms', 'text', (c) => c.notNull())
    .addColumn('term_count', 'integer', (c) => c.notNull())
    .$call((table) =>
      postgres
        ? table.addColumn('tsv', sql`tsvector`, (c) =>
            c.generatedAlwaysAs(sql`array_to_tsvector(string_to_array(terms, ' '))`).stored(),
          )
        : table,
    )
    .execute();
  await db.schema
    .createIndex('agent_document_chunks_document_idx')
    .on('agent_document_chunks')
    .columns(['document_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('agent_document_chunks_scope_idx')
    .on('agent_document_chunks')
    .columns(['agent_id', 'end_user_id'])
    .execute();

  if (postgres) {
    await db.schema
      .createIndex('agent_document_chunks_tsv_idx')
      .on('agent_document_chunks')
      .using('gin')
      .column('tsv')
      .execute();
    return;
  }
  await sql`create virtual table agent_document_chunks_fts using fts5(
    terms,
    content = 'agent_document_chunks',
    content_rowid = 'id',
    tokenize = 'ascii'
  )`.execute(db);
  await sql`create trigger agent_document_chunks_fts_insert after insert on agent_document_chunks
    begin
      insert into agent_document_chunks_fts (rowid, terms) values (new.id, new.terms);
    end`.execute(db);
  // Chunks are replaced, never edited; this keeps the index right should one be.
  await sql`create trigger agent_document_chunks_fts_update after update on agent_document_chunks
    begin
      insert into agent_document_chunks_fts (agent_document_chunks_fts, rowid, terms)
        values ('delete', old.id, old.terms);
      insert into agent_document_chunks_fts (rowid, terms) values (new.id, new.terms);
    end`.execute(db);
  // Also runs for chunks deleted by the cascade from their document or Agent.
  await sql`create trigger agent_document_chunks_fts_delete after delete on agent_document_chunks
    begin
      insert into agent_document_chunks_fts (agent_document_chunks_fts, rowid, terms)
        values ('delete', old.id, old.terms);
    end`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'sqlite') {
    await sql`drop trigger agent_document_chunks_fts_delete`.execute(db);
    await sql`drop trigger agent_document_chunks_fts_update`.execute(db);
    await sql`drop trigger agent_document_chunks_fts_insert`.execute(db);
    await sql`drop table agent_document_chunks_fts`.execute(db);
  }
  await db.schema.dropTable('agent_document_chunks').execute();
  await db.schema.dropTable('agent_documents').execute();
}
