import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../../db/schema.ts';

/** The chunks one conversation may search: an Agent's shared ones and its end user's own. */
export interface SearchScope {
  agentId: string;
  /** Null: the shared chunks only. */
  endUserId: string | null;
}

/** A term and the whole-number weight its matches add to a chunk's candidate score. */
export interface WeightedTerm {
  term: string;
  weight: number;
}

/** A chunk with what ranking reads. */
export interface ChunkForRanking {
  id: number;
  documentId: string;
  seq: number;
  title: string;
  text: string;
  terms: string;
  termCount: number;
}

/**
 * The questions search asks the full-text index, the only SQL that differs between the
 * dialects: "which chunks hold this term". SQLite answers from the FTS5 table
 * `agent_document_chunks_fts`, PostgreSQL from the GIN-indexed `tsvector` column `tsv`; both
 * index the same normalized terms (src/agents/capabilities/documents/search-terms.ts) and match a term
 * exactly, so they give the same answers.
 */
export class FullTextIndex {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  /** How many chunks are in scope and how many terms they hold together. */
  async statistics(scope: SearchScope): Promise<{ chunks: number; terms: number }> {
    const row = await sql<{ chunks: number | string; terms: number | string | null }>`
      select count(*) as chunks, sum(c.term_count) as terms
      from agent_document_chunks c
      where ${inScope(scope)}`
      .execute(this.db)
      .then((result) => result.rows[0]);
    return { chunks: Number(row?.chunks ?? 0), terms: Number(row?.terms ?? 0) };
  }

  /** For each term, how many chunks in scope hold it. */
  async chunkFrequencies(scope: SearchScope, terms: readonly string[]): Promise<number[]> {
    const counts = terms.map(
      (term, i) => sql`
        select ${sql.lit(i)} as i, count(*) as n
        from agent_document_chunks c
        where ${this.holds(term)} and ${inScope(scope)}`,
    );
    const { rows } = await sql<{ i: number | string; n: number | string }>`${sql.join(
      counts,
      sql` union all `,
    )}`.execute(this.db);
    const frequencies = terms.map(() => 0);
    for (const row of rows) frequencies[Number(row.i)] = Number(row.n);
    return frequencies;
  }

  /**
   * The chunks in scope that hold any of the terms, best first by the sum of the weights of
   * the terms they hold (ties by document id and position), at most `limit`, with their
   * document's title and their terms.
   */
  async candidates(
    scope: SearchScope,
    terms: readonly WeightedTerm[],
    limit: number,
  ): Promise<ChunkForRanking[]> {
    const matches = terms.map(
      ({ term, weight }) => sql`
        select c.id as id, cast(${Math.round(weight)} as integer) as w
        from agent_document_chunks c
        where ${this.holds(term)} and ${inScope(scope)}`,
    );
    const best = await sql<{ id: number | string }>`
      select c.id as id
      from (${sql.join(matches, sql` union all `)}) m
      join agent_document_chunks c on c.id = m.id
      group by c.id, c.document_id, c.seq
      order by sum(m.w) desc, c.document_id, c.seq
      limit ${limit}`.execute(this.db);
    const ids = best.rows.map((row) => Number(row.id));
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('agent_document_chunks as c')
      .innerJoin('agent_documents as d', 'd.id', 'c.document_id')
      .select(['c.id', 'c.document_id', 'c.seq', 'd.title', 'c.text', 'c.terms', 'c.term_count'])
      .where('c.id', 'in', ids)
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      documentId: row.document_id,
      seq: Number(row.seq),
      title: row.title,
      text: row.text,
      terms: row.terms,
      termCount: Number(row.term_count),
    }));
  }

  /** The condition "chunk `c` holds `term`", through the dialect's full-text index. */
  private holds(term: string): RawBuilder<unknown> {
    // Terms are letters, marks and digits only (searchTerms), so quoting is plain.
    if (this.dialect === 'postgres') return sql`c.tsv @@ ${`'${term}'`}::tsquery`;
    return sql`c.id in (
      select rowid from agent_document_chunks_fts
      where agent_document_chunks_fts match ${`"${term}"`})`;
  }
}

function inScope(scope: SearchScope): RawBuilder<unknown> {
  const owner =
    scope.endUserId === null
      ? sql`c.end_user_id is null`
      : sql`(c.end_user_id is null or c.end_user_id = ${scope.endUserId})`;
  return sql`c.agent_id = ${scope.agentId} and ${owner}`;
}
