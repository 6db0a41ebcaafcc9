import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely';

/** Statements kept per database file; the service issues a few dozen distinct ones. */
const MAX_STATEMENTS = 512;

/**
 * The database as Kysely's SQLite dialect sees it, with compiled statements reused: Kysely
 * prepares every query it runs, and compiling the SQL each time was a tenth of the main
 * thread's time under streaming load. Statements are keyed by their SQL text (parameters
 * are bound per run) and the oldest is dropped past {@link MAX_STATEMENTS}. SQLite
 * recompiles a kept statement by itself when the schema changes.
 *
 * Kysely's streaming queries (`.stream()`) iterate a statement while other queries may run,
 * which a shared statement does not allow, so `iterate` readers get a fresh one.
 */
export function withStatementCache(file: SqliteDatabase.Database): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      statements.clear();
      file.close();
    },
    prepare: (sql: string) => {
      const cached = statements.get(sql);
      if (cached !== undefined) {
        if (!cached.busy) return cached;
        return file.prepare(sql);
      }
      const statement = file.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > MAX_STATEMENTS) {
        const oldest = statements.keys().next().value as string;
        statements.delete(oldest);
      }
      return statement;
    },
  };
}
