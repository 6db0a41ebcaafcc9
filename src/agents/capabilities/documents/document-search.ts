import type { Kysely } from 'kysely';
import { dialectOf } from '../../../db/dialect.ts';
import type { Database } from '../../../db/schema.ts';
import { type ChunkForRanking, FullTextIndex, type SearchScope } from './full-text.ts';
import { searchTerms } from './search-terms.ts';

export type { SearchScope } from './full-text.ts';

/** One chunk a search found. */
export interface DocumentHit {
  documentId: string;
  title: string;
  /** The chunk's text, as written in the document. */
  excerpt: string;
  /** Its BM25 score (higher is better); comparable within one search only. */
  score: number;
}

/** Distinct query terms used; a longer query is cut. */
export const MAX_QUERY_TERMS = 24;
/** Chunks ranked in full per search. */
export const CANDIDATE_LIMIT = 200;
/** BM25's usual constants: how fast repeats of a term stop adding, how much length counts. */
const K1 = 1.2;
const B = 0.75;

/**
 * Full-text search over the chunks of an Agent's documents, ranked by BM25 computed here
 * from the index's answers, so both dialects rank alike:
 *
 * 1. the query's terms (the same normalization as the documents');
 * 2. how many chunks in scope hold each term, and their average length, from the index;
 * 3. candidates: the chunks holding any term, best by the summed inverse document
 *    frequency of the terms they hold, at most {@link CANDIDATE_LIMIT}. When the scope has
 *    more chunks than that, terms found in more than half of them (`the`, `and`) select no
 *    candidates of their own (they still count in the ranking);
 * 4. each candidate's BM25 score (k1 1.2, b 0.75) from its terms; ties by document and
 *    position.
 */
export class DocumentSearch {
  private readonly index: FullTextIndex;

  constructor(db: Kysely<Database>) {
    this.index = new FullTextIndex(db, dialectOf(db));
  }

  /** The best `limit` chunks for `query` in `scope`; empty when none holds a query term. */
  async search(scope: SearchScope, query: string, limit: number): Promise<DocumentHit[]> {
    const terms = [...new Set(searchTerms(query))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0) return [];
    const totals = await this.index.statistics(scope);
    if (totals.chunks === 0) return [];
    const frequencies = await this.index.chunkFrequencies(scope, terms);
    const found = terms
      .map((term, i) => ({
        term,
        idf: idf(totals.chunks, frequencies[i] ?? 0),
        df: frequencies[i] ?? 0,
      }))
      .filter((entry) => entry.df > 0);
    if (found.length === 0) return [];

    const rare = found.filter((entry) => entry.df * 2 <= totals.chunks);
    const selecting = totals.chunks > CANDIDATE_LIMIT && rare.length > 0 ? rare : found;
    const candidates = await this.index.candidates(
      scope,
      selecting.map((entry) => ({ term: entry.term, weight: Math.round(entry.idf * 1000) })),
      CANDIDATE_LIMIT,
    );
    const averageLength = totals.terms / totals.chunks;
    return candidates
      .map((chunk) => ({ chunk, score: bm25(chunk, found, averageLength) }))
      .sort(
        (a, b) =>
          b.score - a.score ||
          compare(a.chunk.documentId, b.chunk.documentId) ||
          a.chunk.seq - b.chunk.seq,
      )
      .slice(0, limit)
      .map(({ chunk, score }) => ({
        documentId: chunk.documentId,
        title: chunk.title,
        excerpt: chunk.text,
        score,
      }));
  }
}

/** BM25's inverse document frequency, never negative. */
function idf(chunks: number, holding: number): number {
  return Math.log(1 + (chunks - holding + 0.5) / (holding + 0.5));
}

function bm25(
  chunk: ChunkForRanking,
  terms: readonly { term: string; idf: number }[],
  averageLength: number,
): number {
  const counts = new Map<string, number>();
  for (const term of chunk.terms.split(' ')) counts.set(term, (counts.get(term) ?? 0) + 1);
  const lengthFactor = 1 - B + (B * chunk.termCount) / (averageLength || 1);
  let score = 0;
  for (const { term, idf: weight } of terms) {
    const tf = counts.get(term) ?? 0;
    if (tf > 0) score += (weight * tf * (K1 + 1)) / (tf + K1 * lengthFactor);
  }
  return score;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
