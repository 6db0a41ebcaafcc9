import type { Kysely } from 'kysely';

/**
 * Backend-owned application sessions share `agent_sessions` with managed live sessions:
 * `kind` tells them apart; the backend's application (instructions, history, tools) is kept
 * as JSON; `chat_session_id` + `start_request_id` make a start idempotent per workspace.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('managed'))
    .execute();
  await db.schema.alterTable('agent_sessions').addColumn('application', 'text').execute();
  await db.schema.alterTable('agent_sessions').addColumn('backend_identity', 'text').execute();
  await db.schema.alterTable('agent_sessions').addColumn('chat_session_id', 'text').execute();
  await db.schema.alterTable('agent_sessions').addColumn('start_request_id', 'text').execute();
  await db.schema
    .createIndex('agent_sessions_application_start')
    .on('agent_sessions')
    .columns(['workspace_id', 'chat_session_id', 'start_request_id'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('agent_sessions_application_start').execute();
  for (const column of [
    'start_request_id',
    'chat_session_id',
    'backend_identity',
    'application',
    'kind',
  ]) {
    await db.schema.alterTable('agent_sessions').dropColumn(column).execute();
  }
}
