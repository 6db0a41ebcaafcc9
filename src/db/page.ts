import { type Expression, type SqlBool, sql } from 'kysely';

/** One page of a list and where the next one starts. */
export interface Page<Row> {
  rows: Row[];
  /** The cursor of the page after this one; null on the last page. */
  nextCursor: string | null;
}

/** Rows a page reads: one more than it shows, so the extra one tells whether more remain. */
export function lookahead(limit: number): number {
  return limit + 1;
}

/**
 * The page of rows read with {@link lookahead}: the first `limit`, and the cursor of the
 * last of them when a row remained beyond it.
 */
export function takePage<Row>(
  rows: readonly Row[],
  limit: number,
  cursorOf: (last: Row) => string,
): Page<Row> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}

/**
 * The cursor of a page read with exactly `limit` rows: the last one's whenever the page is
 * full (so a page that ends the list exactly still names a next, empty one).
 */
export function fullPageCursor<Row>(
  rows: readonly Row[],
  limit: number,
  cursorOf: (last: Row) => string,
): string | null {
  const last = rows.at(-1);
  return rows.length === limit && last ? cursorOf(last) : null;
}

/**
 * The rows after a position in newest-first order: older than `at`, or as old with a
 * smaller id (ids break ties between rows of the same millisecond). `timeColumn` and
 * `idColumn` may be qualified (`s.created_at`).
 */
export function olderThan(
  position: { at: string; id: string },
  timeColumn: string,
  idColumn: string,
): Expression<SqlBool> {
  const time = sql.ref(timeColumn);
  const id = sql.ref(idColumn);
  return sql<SqlBool>`(${time} < ${position.at} or (${time} = ${position.at} and ${id} < ${position.id}))`;
}
