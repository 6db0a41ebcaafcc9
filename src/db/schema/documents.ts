import type { Generated } from 'kysely';

// Agent documents: the knowledge base an Agent searches, and their full-text chunks.

/** One document of an Agent, shared by its end users or owned by one. */
export interface AgentDocumentsTable {
  /** UUID (v7). */
  id: string;
  agent_id: string;
  /** The end user who owns it (a UUID, lower case); null when every end user shares it. */
  end_user_id: string | null;
  title: string;
  content_type: 'text/plain' | 'text/markdown';
  text: string;
  /** Length of `text` in Unicode code points. */
  chars: number;
  created_at: string;
  updated_at: string;
}

/**
 * One searchable piece of a document. `terms` are the piece's search terms (and its
 * document's title's), normalized and space-separated: SQLite indexes them in the FTS5 table
 * `agent_document_chunks_fts`, PostgreSQL in the generated `tsvector` column `tsv` (GIN).
 */
export interface AgentDocumentChunksTable {
  /** Integer key: the FTS5 table's rowid. Assigned by the database. */
  id: Generated<number>;
  document_id: string;
  /** Copied from the document so a search reads one table. */
  agent_id: string;
  end_user_id: string | null;
  /** Position in the document, from 0. */
  seq: number;
  /** The piece as written in the document. */
  text: string;
  terms: string;
  /** How many terms `terms` holds (the chunk's length for ranking). */
  term_count: number;
}
