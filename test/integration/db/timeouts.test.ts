import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/connect.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

describe('PostgreSQL connection timeouts', () => {
  dialectSuite('postgres');
  let database: TestDatabase;
  /** Accepts TCP connections on loopback and never answers: a database that hangs. */
  let silent: Server;
  const sockets: Socket[] = [];

  beforeAll(async ({ databases }) => {
    database = await databases.empty('postgres');
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    silent?.close();
  });

  it('sets statement and idle-in-transaction timeouts on every connection', async () => {
    const handle = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: '/tmp' });
    try {
      const show = async (name: string) =>
        (
          await sql
            .raw<{ value: string }>(`select current_setting('${name}') as value`)
            .execute(handle.db)
        ).rows[0]?.value;
      expect(await show('statement_timeout')).toBe('15s');
      expect(await show('idle_in_transaction_session_timeout')).toBe('30s');
    } finally {
      await handle.close();
    }
  });

  it('ends a statement that runs past the statement timeout', async () => {
    const handle = await openDatabase({
      databaseUrl: database.databaseUrl,
      dataDir: '/tmp',
      statementTimeoutMs: 200,
    });
    try {
      await expect(sql`select pg_sleep(5)`.execute(handle.db)).rejects.toMatchObject({
        code: '57014', // query_canceled
      });
    } finally {
      await handle.close();
    }
  });

  it('gives up on a database that never answers the connection', async () => {
    const address = silent.address() as { port: number };
    const started = Date.now();
    await expect(
      openDatabase({
        databaseUrl: `postgres://awp:awp@127.0.0.1:${address.port}/awp`,
        dataDir: '/tmp',
      }),
    ).rejects.toThrow();
    // The default connect timeout is 5 s; without one the attempt never ends.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 20_000);
});

describe('SQLite busy timeout', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;

  beforeAll(async ({ databases }) => {
    database = await databases.empty('sqlite');
  });

  it('waits at most 250 ms for another process to release the write lock', async () => {
    const handle = await openDatabase({ databaseUrl: undefined, dataDir: database.dataDir });
    const other = new SqliteDatabase(path.join(database.dataDir, 'awp.sqlite'));
    try {
      const pragma = await sql<{ timeout: number }>`pragma busy_timeout`.execute(handle.db);
      expect(pragma.rows[0]?.timeout).toBe(250);
      other.exec('begin immediate');
      await expect(
        handle.db.updateTable('workspaces').set({ name: 'x' }).execute(),
      ).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    } finally {
      if (other.inTransaction) other.exec('rollback');
      other.close();
      await handle.close();
    }
  });
});
