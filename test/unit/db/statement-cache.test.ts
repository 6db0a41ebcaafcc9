import SqliteDatabase from 'better-sqlite3';
import { type Generated, Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../../src/db/statement-cache.ts';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function database() {
  const cached = withStatementCache(new SqliteDatabase(':memory:'));
  open.push(cached);
  return cached;
}

describe('SQLite statement cache', () => {
  it('compiles a statement once and reuses it with new parameters', () => {
    const cached = database();
    cached.prepare('create table t (id integer primary key, name text)').run([]);
    const insert = cached.prepare('insert into t (name) values (?)');
    expect(cached.prepare('insert into t (name) values (?)')).toBe(insert);
    insert.run(['a']);
    cached.prepare('insert into t (name) values (?)').run(['b']);
    const select = cached.prepare('select name from t order by id');
    expect(select.reader).toBe(true);
    expect(cached.prepare('select name from t order by id').all([])).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
  });

  it('gives a fresh statement while the kept one is being iterated', () => {
    const cached = database();
    cached.prepare('create table t (n integer)').run([]);
    for (let n = 0; n < 3; n++) cached.prepare('insert into t values (?)').run([n]);
    const query = 'select n from t order by n';
    const kept = cached.prepare(query);
    const seen: number[][] = [];
    for (const row of kept.iterate([]) as Iterable<{ n: number }>) {
      const inner = cached.prepare(query);
      expect(inner).not.toBe(kept);
      seen.push([...(inner.all([]) as { n: number }[]).map((r) => r.n), row.n]);
    }
    expect(seen).toEqual([
      [0, 1, 2, 0],
      [0, 1, 2, 1],
      [0, 1, 2, 2],
    ]);
    expect(cached.prepare(query)).toBe(kept);
  });

  it('serves Kysely queries and transactions, and follows schema changes', async () => {
    const db = new Kysely<{ t: { id: Generated<number>; name: string } }>({
      dialect: new SqliteDialect({ database: database() }),
    });
    await sql`create table t (id integer primary key, name text)`.execute(db);
    for (const name of ['x', 'y']) {
      await db.transaction().execute((trx) => trx.insertInto('t').values({ name }).execute());
    }
    const read = () => db.selectFrom('t').selectAll().orderBy('id').execute();
    expect(await read()).toEqual([
      { id: 1, name: 'x' },
      { id: 2, name: 'y' },
    ]);
    // The kept `select *` statement sees the new column.
    await sql`alter table t add column extra text`.execute(db);
    expect(await read()).toEqual([
      { id: 1, name: 'x', extra: null },
      { id: 2, name: 'y', extra: null },
    ]);
  });
});
