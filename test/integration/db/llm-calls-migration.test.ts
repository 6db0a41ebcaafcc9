// Migration 0023: language-model calls of no Agent. Existing rows stay as they were, a row
// without an Agent is accepted, and the rebuilt SQLite table keeps its checks and indexes
// (one open turn per conversation).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrations } from '../../../src/db/migrations/index.ts';
import type { Database } from '../../../src/db/schema.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';

describeEachDialect('migration 0023-llm-calls-without-agent on %s', (dialect) => {
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
      const file = new SqliteDatabase(path.join(database.dataDir, 'awp.sqlite'));
      // As the service opens it (src/db/connect.ts).
      file.pragma('foreign_keys = ON');
      db = new Kysely({ dialect: new SqliteDialect({ database: file }) });
    }
  });

  afterAll(async () => {
    await db?.destroy();
  });

  it('keeps existing calls and accepts calls of no Agent', async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0022-streaming-sessions')).error).toBeUndefined();
    const now = new Date().toISOString();
    await db
      .insertInto('workspaces')
      .values({
        id: 'ws',
        name: 'ws',
        status: 'active',
        billing_provisioned: 1,
        credit_balance_millicredits: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const call = (id: string, agentId: string | null, conversationId: string | null) => ({
      request_id: id,
      audit_id: `aud_${id}`,
      workspace_id: 'ws',
      environment: 'production' as const,
      api_key_id: null,
      source: agentId ? 'messages' : 'translation',
      agent_id: agentId,
      publication_id: agentId ? `pub-${agentId}` : null,
      conversation_id: conversationId,
      user_message_id: null,
      assistant_message_id: null,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      input_price_millicredits_per_1m: 1_000_000,
      output_price_millicredits_per_1m: 4_000_000,
      reserved_millicredits: 500,
      status: 'started' as const,
      error_code: null,
      instance_id: 'api@test',
      created_at: now,
      finished_at: null,
    });
    await db
      .insertInto('llm_requests')
      .values(call('old', 'agent-1', 'conv-1'))
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const old = await db
      .selectFrom('llm_requests')
      .select(['request_id', 'agent_id', 'publication_id', 'conversation_id', 'status'])
      .execute();
    expect(old).toEqual([
      {
        request_id: 'old',
        agent_id: 'agent-1',
        publication_id: 'pub-agent-1',
        conversation_id: 'conv-1',
        status: 'started',
      },
    ]);
    await db
      .insertInto('llm_requests')
      .values(call('translation', null, null))
      .execute();
    // Still one open turn per conversation, and still only the known statuses.
    await expect(
      db
        .insertInto('llm_requests')
        .values(call('second', 'agent-1', 'conv-1'))
        .execute(),
    ).rejects.toThrow();
    await expect(
      db
        .insertInto('llm_requests')
        .values({ ...call('odd', null, null), status: 'odd' as never })
        .execute(),
    ).rejects.toThrow();
    // Deleting the workspace still deletes its calls.
    await db.deleteFrom('workspaces').where('id', '=', 'ws').execute();
    expect(await db.selectFrom('llm_requests').select('request_id').execute()).toEqual([]);
  });
});
