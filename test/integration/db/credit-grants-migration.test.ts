import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from '../../../src/db/migrations/index.ts';
import type { Database } from '../../../src/db/schema.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

describeEachDialect('migration 0008-credit-grants on %s', (dialect) => {
  let database: TestDatabase;
  let db: Kysely<Database>;

  beforeAll(async ({ databases }) => {
    database = await databases.empty(dialect);
    if (dialect === 'postgres') {
      db = new Kysely({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: database.databaseUrl, max: 2 }),
        }),
      });
    } else {
      mkdirSync(database.dataDir, { recursive: true });
      db = new Kysely({
        dialect: new SqliteDialect({
          database: new SqliteDatabase(path.join(database.dataDir, 'awp.sqlite')),
        }),
      });
    }
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('gives each existing workspace one opening grant of balance + charged + reserved', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0007-agent-sessions')).error).toBeUndefined();
    const now = new Date().toISOString();
    const workspace = (id: string, balance: number) => ({
      id,
      name: id,
      status: 'active' as const,
      billing_provisioned: 1,
      credit_balance_millicredits: balance,
      created_at: now,
      updated_at: now,
    });
    await db
      .insertInto('workspaces')
      .values([workspace('busy', 7_000), workspace('empty', 0)])
      .execute();
    const row = (id: string, status: 'started' | 'succeeded', reserved: number, cost: number) => ({
      request_id: id,
      audit_id: `aud_${id}`,
      workspace_id: 'busy',
      environment: 'production' as const,
      api_key_id: null,
      transport: 'http' as const,
      voice_id: 'voice_x',
      route: 'native:x',
      output_format: 'pcm_24000',
      partner_session_id: null,
      context_id: null,
      chars_requested: 100,
      price_millicredits_per_1k_chars: 10_000,
      reserved_millicredits: reserved,
      cost_millicredits: cost,
      pass_through: 0,
      status,
      error_code: null,
      audio_location: null,
      instance_id: 'old',
      created_at: now,
      finished_at: null,
    });
    await db
      .insertInto('synthesis_requests')
      .values([row('r1', 'succeeded', 0, 1_250), row('r2', 'started', 1_000, 0)])
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const grants = await db.selectFrom('credit_grants').selectAll().execute();
    expect(grants).toHaveLength(1);
    // This raw pool reads PostgreSQL bigints as strings.
    const grant = grants[0]!;
    expect({
      workspace: grant.workspace_id,
      millicredits: Number(grant.millicredits),
      reason: grant.reason,
      balanceAfter: Number(grant.balance_after_millicredits),
    }).toEqual({
      workspace: 'busy',
      millicredits: 9_250,
      reason: 'opening_balance',
      balanceAfter: 7_000,
    });
  });
});
