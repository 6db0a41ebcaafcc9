import { type DatabaseHandle, openDatabase } from '../../../src/db/connect.ts';
import { inScope, whereScope } from '../../../src/db/tenant-scope.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

const scope = { workspaceId: 'ws_1', environment: 'development' } as const;

describeEachDialect('whereScope on %s', (dialect) => {
  let testDb: TestDatabase;
  let handle: DatabaseHandle;
  const mark = (n: number) => (dialect === 'postgres' ? `$${n}` : '?');

  beforeAll(async ({ databases }) => {
    testDb = await databases.empty(dialect);
    handle = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
  });
  afterAll(async () => {
    await handle.close();
  });

  it('adds the workspace and the environment after the filters before it', () => {
    const query = whereScope(
      handle.db.selectFrom('agents').select('id').where('slug', '=', 'support'),
      scope,
    ).compile();
    expect(query.sql).toBe(
      `select "id" from "agents" where "slug" = ${mark(1)} and "workspace_id" = ${mark(2)} and "environment" = ${mark(3)}`,
    );
    expect(query.parameters).toEqual(['support', 'ws_1', 'development']);
  });

  it('names the columns of a table or alias in a join', () => {
    const query = whereScope(
      handle.db
        .selectFrom('agents as a')
        .innerJoin('agent_publications as p', 'p.agent_id', 'a.id')
        .select('a.id'),
      scope,
      'a',
    ).compile();
    expect(query.sql).toBe(
      `select "a"."id" from "agents" as "a" inner join "agent_publications" as "p" on "p"."agent_id" = "a"."id" where "a"."workspace_id" = ${mark(1)} and "a"."environment" = ${mark(2)}`,
    );
  });

  it('filters updates and deletes the same way', () => {
    const update = whereScope(handle.db.updateTable('agents').set({ slug: 's' }), scope).compile();
    expect(update.sql).toBe(
      `update "agents" set "slug" = ${mark(1)} where "workspace_id" = ${mark(2)} and "environment" = ${mark(3)}`,
    );
    const remove = whereScope(handle.db.deleteFrom('agents'), scope).compile();
    expect(remove.sql).toBe(
      `delete from "agents" where "workspace_id" = ${mark(1)} and "environment" = ${mark(2)}`,
    );
  });

  it('inScope puts the same filter in a query chain', () => {
    const query = handle.db
      .selectFrom('agents')
      .select('id')
      .$call(inScope(scope))
      .where('slug', '=', 'support')
      .compile();
    expect(query.sql).toBe(
      `select "id" from "agents" where "workspace_id" = ${mark(1)} and "environment" = ${mark(2)} and "slug" = ${mark(3)}`,
    );
  });

  it('runs against the database', async () => {
    const rows = await whereScope(handle.db.selectFrom('agents').select('id'), scope).execute();
    expect(rows).toEqual([]);
  });
});
