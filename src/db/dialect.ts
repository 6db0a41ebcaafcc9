import { type Kysely, sql } from 'kysely';

/**
 * Which database `db` speaks, for the few statements the dialects write differently (full-text
 * search). Read from how a one-parameter query compiles: PostgreSQL numbers its parameters
 * (`$1`), SQLite writes `?`.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations hold a Kysely of the schema as it was.
export function dialectOf(db: Kysely<any>): 'sqlite' | 'postgres' {
  return sql`select ${1}`.compile(db).sql.includes('$1') ? 'postgres' : 'sqlite';
}
