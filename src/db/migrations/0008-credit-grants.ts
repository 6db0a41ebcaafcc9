import { type Kysely, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';

/**
 * Credit grants: every credit a workspace receives is a row, so balance + charges + open
 * reservations always equal the grants. Existing workspaces get one opening grant of what
 * they hold now (balance, charged and still reserved).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credit_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    // Negative when `credit set` lowered a balance.
    .addColumn('millicredits', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('balance_after_millicredits', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'credit_grants_reason',
      sql`reason in ('opening_balance', 'workspace_created', 'added', 'set')`,
    )
    .execute();
  await db.schema
    .createIndex('credit_grants_workspace_idx')
    .on('credit_grants')
    .columns(['workspace_id', 'created_at'])
    .execute();

  const workspaces = await db
    .selectFrom('workspaces')
    .select(['id', 'credit_balance_millicredits'])
    .execute();
  const now = new Date().toISOString();
  for (const workspace of workspaces) {
    const used = await db
      .selectFrom('synthesis_requests')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum('cost_millicredits'), sql`0`).as('charged'),
        eb.fn
          .coalesce(
            eb.fn.sum(
              eb
                .case()
                .when('status', '=', 'started')
                .then(eb.ref('reserved_millicredits'))
                .else(0)
                .end(),
            ),
            sql`0`,
          )
          .as('reserved'),
      ])
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    const balance = Number(workspace.credit_balance_millicredits);
    const total = balance + Number(used.charged) + Number(used.reserved);
    if (total === 0) continue;
    await db
      .insertInto('credit_grants')
      .values({
        id: uuidv7(),
        workspace_id: workspace.id,
        millicredits: total,
        reason: 'opening_balance',
        note: 'credit held when grants were introduced',
        balance_after_millicredits: balance,
        created_at: now,
      })
      .execute();
  }
}
