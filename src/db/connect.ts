import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A postgres:// URL; when absent SQLite is used under `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Largest PostgreSQL pool. */
  maxConnections?: number;
}

/** Opens the database the configuration names and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.maxConnections ?? 20)
    : openSqlite(options.dataDir);
  try {
    await migrate(handle.db);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** pg is loaded only when PostgreSQL is configured: the operator tool starts faster. */
async function openPostgres(url: string, max: number): Promise<DatabaseHandle> {
  const { default: pg } = await import('pg');
  // int8 (bigint) columns hold credit balances: well inside Number's safe range.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

function openSqlite(dataDir: string): DatabaseHandle {
  mkdirSync(dataDir, { recursive: true });
  const file = new SqliteDatabase(path.join(dataDir, 'awp.sqlite'));
  // WAL lets the operator tool and the service use the file at the same time.
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}
