// A query compiled once and run with new arguments: the same SQL and parameters as the
// builder gives for those arguments, on both dialects, and the same effect when run.
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { ReusableQuery } from '../../../src/db/reusable-query.ts';
import type { Database } from '../../../src/db/schema.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const debit = (db: Kysely<Database>, workspaceId: string, millicredits: number) =>
  db
    .updateTable('workspaces')
    .set((eb) => ({
      credit_balance_millicredits: eb('credit_balance_millicredits', '-', millicredits),
    }))
    .where('id', '=', workspaceId)
    .where('credit_balance_millicredits', '>=', millicredits)
    .returning('credit_balance_millicredits');

describeEachDialect('reusable queries on %s', (dialect) => {
  let handle: DatabaseHandle;
  let workspaceId: string;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
    workspaceId = (await seedWorkspace(handle, { credits: 1000 })).workspaceId;
  });

  it('compiles to what the builder compiles, with each run its own arguments', () => {
    const query = new ReusableQuery(debit);
    for (const [id, amount] of [
      ['ws_a', 5],
      ['ws_b', 70],
    ] as const) {
      const built = debit(handle.db, id, amount).compile();
      const reused = query.compile(handle.db, id, amount);
      expect(reused.sql).toBe(built.sql);
      expect(reused.parameters).toEqual(built.parameters);
    }
  });

  it('runs in a transaction with the effect of the built query', async () => {
    const query = new ReusableQuery(debit);
    const first = await handle.db
      .transaction()
      .execute(async (trx) => (await query.execute(trx, workspaceId, 250_000)).rows);
    const second = await query.execute(handle.db, workspaceId, 250_000);
    const refused = await query.execute(handle.db, workspaceId, 600_000);
    expect(first.map((row) => Number(row.credit_balance_millicredits))).toEqual([750_000]);
    expect(second.rows.map((row) => Number(row.credit_balance_millicredits))).toEqual([500_000]);
    expect(refused.rows).toEqual([]);
  });

  it('refuses a builder that does not bind an argument as a parameter', () => {
    const query = new ReusableQuery((db: Kysely<Database>, _unused: string) =>
      db.selectFrom('workspaces').select('id'),
    );
    expect(() => query.compile(handle.db, 'x')).toThrow(
      'argument 0 of a reusable query is not a bound parameter',
    );
  });
});
