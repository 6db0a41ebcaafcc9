import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { withStatementCache } from './statement-cache.ts';

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
  /** PostgreSQL: longest wait for a new connection. Default 5 s. */
  connectTimeoutMs?: number | undefined;
  /** PostgreSQL `statement_timeout`. Default 15 s. */
  statementTimeoutMs?: number | undefined;
  /** PostgreSQL `idle_in_transaction_session_timeout`. Default 30 s. */
  idleInTransactionTimeoutMs?: number | undefined;
  /**
   * SQLite busy timeout. Default 250 ms. better-sqlite3 waits for another process's write
   * lock synchronously, so the whole event loop stands still for up to this long.
   */
  busyTimeoutMs?: number | undefined;
}

/** The database options of a loaded configuration. */
export function databaseOptions(config: {
  DATABASE_URL?: string | undefined;
  DATA_DIR: string;
  PG_CONNECT_TIMEOUT_MS: number;
  PG_STATEMENT_TIMEOUT_MS: number;
  PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  SQLITE_BUSY_TIMEOUT_MS: number;
}): DatabaseOptions {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    connectTimeoutMs: config.PG_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.PG_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    busyTimeoutMs: config.SQLITE_BUSY_TIMEOUT_MS,
  };
}

/** Opens the database the configuration names and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const handle = await connectDatabase(options);
  try {
    await migrate(handle.db);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/**
 * Connects to the database the options name, leaving its schema as it is: for a second
 * connection of a process that opened (and migrated) it already.
 */
export async function connectDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl
    ? await openPostgres(options.databaseUrl, options)
    : openSqlite(options.dataDir, options.busyTimeoutMs ?? 250);
}

/** pg is loaded only when PostgreSQL is configured: the operator tool starts faster. */
async function openPostgres(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const { default: pg } = await import('pg');
  // int8 (bigint) columns hold credit balances: well inside Number's safe range.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 20,
    // An unreachable database fails requests and readiness instead of hanging them.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    // A transaction left open by a stalled process must not hold row locks (a
    // workspace's balance) forever.
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 30_000,
  });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

function openSqlite(dataDir: string, busyTimeoutMs: number): DatabaseHandle {
  mkdirSync(dataDir, { recursive: true });
  const file = new SqliteDatabase(path.join(dataDir, 'awp.sqlite'));
  // WAL lets the operator tool and the service use the file at the same time.
  file.pragma('journal_mode = WAL');
  // Short: the wait for another process's write lock is synchronous and stops the event
  // loop. Our transactions hold the lock for well under a millisecond.
  file.pragma(`busy_timeout = ${Math.round(busyTimeoutMs)}`);
  file.pragma('foreign_keys = ON');
  file.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(file) }),
  });
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
